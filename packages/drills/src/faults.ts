// The faults of the drills. Kills strike right after a chosen Redis write
// (see striker.ts) so they land inside the window that matters, where a
// service has done its work but not yet answered, instead of wherever the
// clock happens to be.
import { sleep } from './client.js';
import { KEY_PREFIX, type DrillSystem } from './drill-system.js';
import type { ServiceName } from './service-process.js';
import { killAfterNextWrite } from './striker.js';

/** A Redis write to strike after: key pattern (after the key prefix) and keyspace event. */
export interface Write {
  pattern: string;
  event: 'hset' | 'set';
}

/** A shop request record written: the requests service is between storing and answering. */
export const SHOP_REQUEST_STORED: Write = { pattern: 'shop-request:*', event: 'hset' };
/** The idempotency lock of a shop request taken: its handler is just starting. */
export const SHOP_REQUEST_LOCKED: Write = { pattern: 'shop-requests:idem:*', event: 'set' };
/** An intake step recorded: the worker is in the middle of a job. */
export const INTAKE_STEP_RECORDED: Write = { pattern: 'intake:steps:*', event: 'hset' };
/** A credential record written: identity is between storing and answering. */
export const CREDENTIAL_STORED: Write = { pattern: 'cred:{*', event: 'hset' };

const STRIKE_TIMEOUT_MS = 3_000;

function keyspace(pattern: string): string {
  return `__keyspace@0__:${KEY_PREFIX}${pattern}`;
}

/** SIGKILL `name` right after the next `write`, keep it down for `downMs`, start it on the same port. */
export function killAfterWrite(name: ServiceName, write: Write, downMs: number) {
  return async (system: DrillSystem) => {
    const service = system.services[name];
    const pid = service.pid();
    if (pid === undefined) throw new Error(`${name} is not running`);
    const when = await killAfterNextWrite(system.redisProcess.port, keyspace(write.pattern), write.event, pid, STRIKE_TIMEOUT_MS);
    const killedAt = Date.now();
    // Already dead by the striker's hand; restart waits for the exit, then the outage, then readiness.
    await service.restart(downMs);
    return `${name} killed ${when}, answering again ${Date.now() - killedAt} ms later`;
  };
}

/** SIGKILL redis-server right after the next shop request write; start it on the same port and AOF directory. */
export function restartRedisAfterWrite(downMs: number) {
  return async (system: DrillSystem) => {
    const pid = system.redisProcess.pid();
    if (pid === undefined) throw new Error('redis-server is not running');
    const { pattern, event } = SHOP_REQUEST_STORED;
    const when = await killAfterNextWrite(system.redisProcess.port, keyspace(pattern), event, pid, STRIKE_TIMEOUT_MS);
    const killedAt = Date.now();
    await system.redisProcess.restart(downMs);
    return `redis-server killed ${when}, answering again ${Date.now() - killedAt} ms later`;
  };
}

export function takeSmtpAway(downMs: number) {
  return async (system: DrillSystem) => {
    const awayAt = Date.now();
    await system.smtp.takeAway();
    await sleep(downMs);
    await system.smtp.bringBack();
    const failed = system.services['intake-worker'].log.count(awayAt, 'intake attempt failed');
    return `SMTP server away for ${downMs} ms; the worker logged ${failed} failed intake attempts meanwhile`;
  };
}

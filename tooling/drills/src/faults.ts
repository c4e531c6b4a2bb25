// The faults of the drills. Kills strike right after a chosen Redis write
// (see striker.ts) so they land inside the window that matters, where a
// service has done its work but not yet answered, instead of wherever the
// clock happens to be.
import { sleep } from './client.js';
import { KEY_PREFIX, singleRedis, type DrillSystem } from './drill-system.js';
import type { ServiceName } from './service-process.js';
import { strikeAfterNextWrite } from './striker.js';

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
    const when = await strikeAfterNextWrite(singleRedis(system).port, keyspace(write.pattern), write.event, [{ pid, signal: 'SIGKILL' }], STRIKE_TIMEOUT_MS);
    const killedAt = Date.now();
    // Already dead by the striker's hand; restart waits for the exit, then the outage, then readiness.
    await service.restart(downMs);
    return `${name} killed ${when}, answering again ${Date.now() - killedAt} ms later`;
  };
}

/**
 * SIGKILL the gateway while the requests service works on a request, so the
 * service finishes its work with nobody left to answer. The service is held
 * still (SIGSTOP, as in a long pause) from the moment it takes the request's
 * idempotency lock until the gateway is gone; otherwise it often answers
 * within the millisecond the kill takes to land.
 */
export function killGatewayMidRequest(downMs: number, pauseMs = 200) {
  return async (system: DrillSystem) => {
    const { gateway, requests } = system.services;
    const gatewayPid = gateway.pid();
    const requestsPid = requests.pid();
    if (gatewayPid === undefined || requestsPid === undefined) throw new Error('the gateway and the requests service must be running');
    const { pattern, event } = SHOP_REQUEST_LOCKED;
    let when: string;
    try {
      when = await strikeAfterNextWrite(
        singleRedis(system).port,
        keyspace(pattern),
        event,
        [
          { pid: requestsPid, signal: 'SIGSTOP' },
          { pid: gatewayPid, signal: 'SIGKILL' },
        ],
        STRIKE_TIMEOUT_MS,
      );
      await gateway.kill();
      await sleep(pauseMs);
    } finally {
      process.kill(requestsPid, 'SIGCONT');
    }
    const killedAt = Date.now();
    await gateway.restart(Math.max(0, downMs - pauseMs));
    return `gateway killed ${when} while the requests service was held still for ${pauseMs} ms, answering again ${Date.now() - killedAt + pauseMs} ms later`;
  };
}

/** SIGKILL redis-server right after the next shop request write; start it on the same port and AOF directory. */
export function restartRedisAfterWrite(downMs: number) {
  return async (system: DrillSystem) => {
    const redis = singleRedis(system);
    const pid = redis.pid();
    if (pid === undefined) throw new Error('redis-server is not running');
    const { pattern, event } = SHOP_REQUEST_STORED;
    const when = await strikeAfterNextWrite(redis.port, keyspace(pattern), event, [{ pid, signal: 'SIGKILL' }], STRIKE_TIMEOUT_MS);
    const killedAt = Date.now();
    await redis.restart(downMs);
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

// The faults of the drills. Kills strike right after a chosen Redis write
// (see striker.ts) so they land inside the window that matters, where a
// service has done its work but not yet answered, instead of wherever the
// clock happens to be.
import { sleep } from './client.js';
import { KEY_PREFIX, type DrillSystem } from './drill-system.js';
import type { ServiceName } from './service-process.js';
import { killAfterNextWrite } from './striker.js';

export const SHOP_REQUEST_RECORD = 'shop-request:*';
export const INTAKE_STEPS = 'intake:steps:*';
export const CREDENTIAL_RECORD = 'cred:{*';

const STRIKE_TIMEOUT_MS = 3_000;

function keyspace(pattern: string): string {
  return `__keyspace@0__:${KEY_PREFIX}${pattern}`;
}

/** SIGKILL `name` right after the next write to `pattern`, keep it down for `downMs`, start it on the same port. */
export function killAfterWrite(name: ServiceName, pattern: string, downMs: number) {
  return async (system: DrillSystem) => {
    const service = system.services[name];
    const pid = service.pid();
    if (pid === undefined) throw new Error(`${name} is not running`);
    const when = await killAfterNextWrite(system.redisProcess.port, keyspace(pattern), pid, STRIKE_TIMEOUT_MS);
    const killedAt = Date.now();
    await service.kill();
    await sleep(downMs);
    await service.start();
    return `${name} killed ${when}, answering again ${Date.now() - killedAt} ms later`;
  };
}

/** SIGKILL redis-server right after the next shop request write; start it on the same port and AOF directory. */
export function restartRedisAfterWrite(downMs: number) {
  return async (system: DrillSystem) => {
    const pid = system.redisProcess.pid();
    if (pid === undefined) throw new Error('redis-server is not running');
    const when = await killAfterNextWrite(system.redisProcess.port, keyspace(SHOP_REQUEST_RECORD), pid, STRIKE_TIMEOUT_MS);
    const killedAt = Date.now();
    await system.redisProcess.kill();
    await sleep(downMs);
    await system.redisProcess.start();
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

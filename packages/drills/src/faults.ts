// The faults of the drills. Kills strike right after a chosen Redis write
// (see key-watch.ts) so they land inside the window that matters instead of
// wherever the clock happens to be.
import { sleep } from './client.js';
import { KEY_PREFIX, type DrillSystem } from './drill-system.js';
import { watchKeys } from './key-watch.js';
import type { ServiceName } from './service-process.js';

/** Resolves right after the next write of a key matching `pattern` with that key, or after `timeoutMs` regardless. */
async function afterNextWrite(system: DrillSystem, pattern: string, events: string[], timeoutMs = 3_000): Promise<string> {
  const watch = await watchKeys(system.redisProcess.url, `${KEY_PREFIX}${pattern}`, events);
  try {
    return (await watch.next(timeoutMs)) ?? `no write to ${pattern} within ${timeoutMs} ms`;
  } finally {
    watch.close();
  }
}

export const SHOP_REQUEST_RECORD = 'shop-request:*';
export const INTAKE_STEPS = 'intake:steps:*';
export const CREDENTIAL_RECORD = 'cred:{*';

/** SIGKILL `name` right after the next write to `pattern`, keep it down for `downMs`, start it on the same port. */
export function killAfterWrite(name: ServiceName, pattern: string, downMs: number) {
  return async (system: DrillSystem) => {
    const key = await afterNextWrite(system, pattern, ['hset']);
    const killedAt = Date.now();
    await system.services[name].kill();
    await sleep(downMs);
    await system.services[name].start();
    return `${name} killed after ${key}, answering again ${Date.now() - killedAt} ms later`;
  };
}

/** SIGKILL redis-server right after the next shop request is stored; start it on the same port and AOF directory. */
export function restartRedisAfterWrite(downMs: number) {
  return async (system: DrillSystem) => {
    const key = await afterNextWrite(system, SHOP_REQUEST_RECORD, ['hset']);
    const killedAt = Date.now();
    await system.redisProcess.kill();
    await sleep(downMs);
    await system.redisProcess.start();
    return `redis-server killed after ${key}, answering again ${Date.now() - killedAt} ms later`;
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

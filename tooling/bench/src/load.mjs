// One autocannon run against a URL: a warm-up whose numbers are thrown away
// (JIT, keep-alive pools, caches), then the measured run, with the CPU time
// of every participant and, given a Redis client, the commands Redis ran.
import autocannon from 'autocannon';
import { startCpuWatch } from './cpu-watch.mjs';
import { commandCalls, commandsBetween } from './redis-private.mjs';

export async function measureLoad({ url, method = 'GET', headers, body, connections, warmupSeconds, durationSeconds, participants = [], redis = null }) {
  const request = { url, method, headers, body, connections };
  if (warmupSeconds > 0) await autocannon({ ...request, duration: warmupSeconds });
  const callsBefore = redis ? await commandCalls(redis) : null;
  const cpu = startCpuWatch(participants);
  // The monotonic clock V8's profiler stamps samples with: a profile can be cut to this window.
  const startUs = Number(process.hrtime.bigint() / 1000n);
  const result = await autocannon({ ...request, duration: durationSeconds });
  const endUs = Number(process.hrtime.bigint() / 1000n);
  const cpuShares = cpu.stop();
  const redisCommands = redis ? commandsBetween(callsBefore, await commandCalls(redis)) : null;
  return {
    requestsPerSecond: result.requests.average,
    /** Responses answered in the measured window: what CPU time is divided by. */
    total: result.requests.total,
    p50: result.latency.p50,
    p99: result.latency.p99,
    ok: result['2xx'],
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
    cpu: cpuShares,
    redisCommands,
    window: { startUs, endUs },
  };
}

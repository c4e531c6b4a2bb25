// One autocannon run against a URL: a warm-up whose numbers are thrown away
// (JIT, keep-alive pools, caches), then the measured run, with the CPU time
// of every participant and, given a Redis client, the commands Redis ran;
// and the same request paced evenly at a given rate.
import http from 'node:http';
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

/**
 * The same request at a fixed rate, spread evenly: each of `connections`
 * keep-alive connections sends one every `connections / rate` seconds, their
 * starts staggered. autocannon spends a rate in bursts at full speed, so a
 * process it calls never idles between requests; this one does, as a service
 * behind the gateway does. Same result shape as `measureLoad`.
 */
export async function measurePaced({ url, headers, rate, connections, warmupSeconds, durationSeconds, participants = [] }) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: connections });
  const intervalMs = (1000 * connections) / rate;
  const send = (seconds, answered) => {
    const until = performance.now() + seconds * 1000;
    return Promise.all(
      Array.from({ length: connections }, (_, i) => new Promise((resolve) => {
        const tick = () => {
          if (performance.now() >= until) return resolve();
          const sentAt = performance.now();
          http
            .get(url, { agent, headers }, (res) => {
              res.resume();
              res.on('end', () => answered(res.statusCode, performance.now() - sentAt));
            })
            .on('error', () => answered(0, 0));
          setTimeout(tick, intervalMs);
        };
        setTimeout(tick, (i * intervalMs) / connections);
      })),
    );
  };
  const counts = { ok: 0, non2xx: 0, errors: 0 };
  const latencies = [];
  try {
    if (warmupSeconds > 0) await send(warmupSeconds, () => {});
    const cpu = startCpuWatch(participants);
    const startUs = Number(process.hrtime.bigint() / 1000n);
    await send(durationSeconds, (status, ms) => {
      if (status === 0) counts.errors++;
      else if (status >= 200 && status < 300) counts.ok++;
      else counts.non2xx++;
      if (status !== 0) latencies.push(ms);
    });
    const endUs = Number(process.hrtime.bigint() / 1000n);
    const cpuShares = cpu.stop();
    latencies.sort((a, b) => a - b);
    const at = (q) => (latencies.length ? Math.round(latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))]) : Number.NaN);
    const total = counts.ok + counts.non2xx;
    return { requestsPerSecond: total / durationSeconds, total, p50: at(0.5), p99: at(0.99), ...counts, cpu: cpuShares, redisCommands: null, window: { startUs, endUs } };
  } finally {
    agent.destroy();
  }
}

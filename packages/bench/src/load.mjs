// One autocannon run against a URL: a warm-up whose numbers are thrown away
// (JIT, keep-alive pools, caches), then the measured run.
import autocannon from 'autocannon';
import { startCpuWatch } from './cpu-watch.mjs';

export async function measureLoad({ url, headers, connections, warmupSeconds, durationSeconds, participants = [] }) {
  if (warmupSeconds > 0) await autocannon({ url, headers, connections, duration: warmupSeconds });
  const cpu = startCpuWatch(participants);
  const result = await autocannon({ url, headers, connections, duration: durationSeconds });
  const cpuShares = cpu.stop();
  return {
    requestsPerSecond: result.requests.average,
    total: result.requests.total,
    p50: result.latency.p50,
    p99: result.latency.p99,
    ok: result['2xx'],
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
    cpu: cpuShares,
  };
}

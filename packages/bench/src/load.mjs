// One autocannon run against a URL: a warm-up whose numbers are thrown away
// (JIT, keep-alive pools, caches), then the measured run.
import autocannon from 'autocannon';

export async function measureLoad({ url, headers, connections, warmupSeconds, durationSeconds }) {
  if (warmupSeconds > 0) await autocannon({ url, headers, connections, duration: warmupSeconds });
  const result = await autocannon({ url, headers, connections, duration: durationSeconds });
  return {
    requestsPerSecond: result.requests.average,
    total: result.requests.total,
    p50: result.latency.p50,
    p99: result.latency.p99,
    ok: result['2xx'],
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
  };
}

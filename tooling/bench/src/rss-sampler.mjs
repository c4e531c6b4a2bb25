// Resident memory of spawned services, read from /proc/<pid>/status (VmRSS,
// in kB): once when a service is ready, once after it has sat idle (V8's
// memory reducer gives back what start-up left behind some 15 s after the
// allocations stop), and every few hundred milliseconds while the load runs.
// The idle value and the highest value under load are what the budget judges.
import { readFileSync } from 'node:fs';

export function readRssBytes(pid) {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const match = /^VmRSS:\s+(\d+)\s+kB/m.exec(status);
    return match ? Number(match[1]) * 1024 : null;
  } catch {
    return null;
  }
}

export function createRssSampler(intervalMs = 200) {
  const watched = new Map();
  const maxByService = new Map();
  const readyByService = new Map();
  const idleByService = new Map();
  const keepHighest = (map, name, pid) => {
    const rss = readRssBytes(pid);
    if (rss !== null && rss > (map.get(name) ?? 0)) map.set(name, rss);
  };
  let timer = null;

  const sample = () => {
    for (const [pid, name] of watched) {
      const rss = readRssBytes(pid);
      if (rss !== null && rss > (maxByService.get(name) ?? 0)) maxByService.set(name, rss);
    }
  };

  return {
    /** Samples `pid` from now on; several processes may share a service name. */
    watch(name, pid) {
      watched.set(pid, name);
      if (!timer) {
        timer = setInterval(sample, intervalMs);
        timer.unref();
      }
      sample();
    },
    /** RSS of `pid` as it answers ready, before any request: kept (highest per service). */
    recordReady(name, pid) {
      keepHighest(readyByService, name, pid);
    },
    /** RSS of `pid` after it sat idle since ready, before any load: kept (highest per service). */
    recordIdle(name, pid) {
      keepHighest(idleByService, name, pid);
    },
    unwatch(pid) {
      sample();
      watched.delete(pid);
    },
    stop() {
      sample();
      if (timer) clearInterval(timer);
      timer = null;
      watched.clear();
    },
    /** Highest RSS seen per service name, in bytes. */
    maxima: () => new Map(maxByService),
    /** RSS per service when it answered ready, in bytes (services that recorded one). */
    ready: () => new Map(readyByService),
    /** RSS per service after sitting idle, in bytes (services that recorded one). */
    idle: () => new Map(idleByService),
  };
}

/**
 * Waits until `seconds` have passed since `readyAt` (performance.now() when
 * the services answered ready), then records each one's idle RSS.
 */
export async function recordIdleAfter(sampler, services, readyAt, seconds) {
  const wait = readyAt + seconds * 1_000 - performance.now();
  if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
  for (const service of services) sampler.recordIdle(service.name, service.pid);
}

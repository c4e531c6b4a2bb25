// Resident memory of spawned services, read from /proc/<pid>/status (VmRSS,
// in kB) every few hundred milliseconds while the load runs; the highest
// value per service is what the memory budget judges.
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
  const idleByService = new Map();
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
    /** RSS of `pid` now, before any load: kept (highest per service) to show what the load adds. */
    recordIdle(name, pid) {
      const rss = readRssBytes(pid);
      if (rss !== null && rss > (idleByService.get(name) ?? 0)) idleByService.set(name, rss);
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
    /** RSS per service when it was ready and idle, in bytes (services that recorded one). */
    idle: () => new Map(idleByService),
  };
}

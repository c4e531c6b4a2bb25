// CPU time of each process taking part in a run, and of everything else on
// the machine, from /proc. On two shared cores a benchmark means little when
// "other" is large, and a bottleneck shows as a process near 100 % of a core.
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import os from 'node:os';

// Clock ticks per second of utime/stime in /proc/<pid>/stat (100 on Linux nearly always).
const TICKS_PER_SECOND = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();

function totalJiffies() {
  const [, ...fields] = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/);
  const n = fields.map(Number);
  const total = n.slice(0, 8).reduce((a, b) => a + b, 0);
  const idle = n[3] + n[4];
  return { total, busy: total - idle };
}

function processJiffies(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(fields[11]) + Number(fields[12]);
  } catch {
    return null;
  }
}

/** CPU time (user + system) `pid` has used so far, in µs; null when it is gone. */
export function processCpuMicros(pid) {
  const jiffies = processJiffies(pid);
  return jiffies === null ? null : (jiffies * 1e6) / TICKS_PER_SECOND;
}

/** The pid of a redis-server on this machine, if there is one: its CPU is part of what is measured. */
export function findRedisServerPid() {
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/comm`, 'utf8').trim() === 'redis-server') return Number(entry);
    } catch {
      // gone meanwhile
    }
  }
  return null;
}

/**
 * Starts counting for `participants` ({ name, pid }); `stop()` (call it while
 * they still run) answers, per name, the share of one core used and the CPU
 * time in µs (processes sharing a name are summed), and "other" for the rest
 * of the machine.
 */
export function startCpuWatch(participants) {
  const before = totalJiffies();
  const start = participants.map((p) => ({ ...p, jiffies: processJiffies(p.pid) }));
  return {
    stop() {
      const after = totalJiffies();
      const elapsed = (after.total - before.total) / os.cpus().length;
      if (elapsed <= 0) return [];
      const used = new Map();
      let ours = 0;
      for (const p of start) {
        const now = processJiffies(p.pid);
        if (now === null || p.jiffies === null) continue;
        ours += now - p.jiffies;
        used.set(p.name, (used.get(p.name) ?? 0) + (now - p.jiffies));
      }
      used.set('other', Math.max(0, after.busy - before.busy - ours));
      return [...used.entries()].map(([name, jiffies]) => ({
        name,
        percent: Math.round((100 * jiffies) / elapsed),
        micros: (jiffies * 1e6) / TICKS_PER_SECOND,
      }));
    },
  };
}

/** CPU µs of participant `name` per unit of work (request, delivery); NaN when it was not measured. */
export function cpuPer(shares, name, count) {
  const share = shares.find((s) => s.name === name);
  return share && count > 0 ? share.micros / count : Number.NaN;
}

export function formatCpu(label, shares) {
  return `CPU during ${label} (% of one core, ${os.cpus().length} cores): ${shares.map((s) => `${s.name} ${s.percent}`).join(', ')}`;
}

/** Share of the machine's CPU time that was idle over the next `ms`. */
export async function measureIdle(ms = 1_000) {
  const before = totalJiffies();
  await new Promise((r) => setTimeout(r, ms));
  const after = totalJiffies();
  const total = after.total - before.total;
  return total > 0 ? Math.round((100 * (total - (after.busy - before.busy))) / total) : 100;
}

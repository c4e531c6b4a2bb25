// Where a service spends its time: reads a V8 `.cpuprofile` (written by a
// run with BENCH_CPU_PROF=<dir>) and prints the heaviest functions by self
// time and the heaviest packages or files; with a window (µs of the
// monotonic clock, as load.mjs records each run's) only the samples in it.
//   node tooling/bench/src/profile-summary.mjs <file.cpuprofile> [top]
import { readFileSync } from 'node:fs';

/** A package, or for the project's own code its file (`gateway/stages/admit.js`): a stage's share. */
export function moduleOf(url) {
  if (!url) return '(native / engine)';
  const pkg = /node_modules\/(?:\.pnpm\/[^/]+\/node_modules\/)?((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return pkg[1];
  const own = /\/(?:apps|packages)\/([^/]+)\/dist\/(.+)$/.exec(url);
  if (own) return `${own[1]}/${own[2]}`;
  const app = /\/(apps|packages)\/([^/]+)\//.exec(url);
  if (app) return `${app[1]}/${app[2]}`;
  if (url.startsWith('node:')) return url;
  return url;
}

/** Self time per sampled node, in µs, of the samples inside `window` (all without one). */
function selfTimes(profile, window) {
  const deltas = profile.timeDeltas ?? [];
  const selfUs = new Map();
  let at = profile.startTime;
  profile.samples.forEach((id, i) => {
    at += deltas[i] ?? 0;
    if (window && (at < window.startUs || at > window.endUs)) return;
    // A sample stands for the time until the next one.
    const us = deltas[i + 1] ?? 0;
    selfUs.set(id, (selfUs.get(id) ?? 0) + us);
  });
  return selfUs;
}

/** Self time plus time of everything it called, per package or own file: each stage's whole cost. */
function inclusiveTimes(profile, selfUs) {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const inclusive = new Map();
  for (const [id, us] of selfUs) {
    const seen = new Set();
    for (let at = id; at !== undefined; at = parent.get(at)) {
      const { functionName, url } = byId.get(at).callFrame;
      // Node's own modules sit under everything; the packages and our files are the stages.
      if (!url || functionName === '(idle)' || url.startsWith('node:')) continue;
      seen.add(moduleOf(url));
    }
    for (const mod of seen) inclusive.set(mod, (inclusive.get(mod) ?? 0) + us);
  }
  return inclusive;
}

export function summarizeProfile(profile, top = 25, window = undefined) {
  const selfUs = selfTimes(profile, window);
  const total = [...selfUs.values()].reduce((a, b) => a + b, 0);
  const byFunction = new Map();
  const byModule = new Map();
  for (const node of profile.nodes) {
    const us = selfUs.get(node.id) ?? 0;
    if (!us) continue;
    const { functionName, url, lineNumber } = node.callFrame;
    const fn = `${functionName || '(anonymous)'} ${url ? `${url.replace(/^file:\/\/.*?\/(node_modules|apps|packages)\//, '$1/').replace(/^.*\/node_modules\//, '')}:${lineNumber + 1}` : ''}`.trim();
    byFunction.set(fn, (byFunction.get(fn) ?? 0) + us);
    const mod = ['(idle)', '(program)', '(garbage collector)'].includes(functionName) ? functionName : moduleOf(url);
    byModule.set(mod, (byModule.get(mod) ?? 0) + us);
  }
  const idleUs = byModule.get('(idle)') ?? 0;
  const busy = total - idleUs;
  const rank = (map, n = top) =>
    [...map.entries()]
      .filter(([name]) => name !== '(idle)')
      .sort((a, b) => b[1] - a[1])
      .slice(0, n)
      .map(([name, us]) => ({ name, ms: us / 1000, share: busy ? us / busy : 0 }));
  return { totalMs: total / 1000, busyMs: busy / 1000, functions: rank(byFunction), modules: rank(byModule), inclusive: rank(inclusiveTimes(profile, selfUs), Math.max(top, 30)) };
}

const line = (r) => `${(100 * r.share).toFixed(1).padStart(5)} %  ${r.name}`;

if (import.meta.url === `file://${process.argv[1]}`) {
  const [file, top] = process.argv.slice(2);
  if (!file) {
    process.stderr.write('usage: node profile-summary.mjs <file.cpuprofile> [top]\n');
    process.exit(2);
  }
  const summary = summarizeProfile(JSON.parse(readFileSync(file, 'utf8')), Number(top) || 25);
  process.stdout.write(
    `${file}: ${summary.busyMs.toFixed(0)} ms busy of ${summary.totalMs.toFixed(0)} ms sampled (shares of the busy time)\n\nby package or file (self time)\n${summary.modules.map(line).join('\n')}\n\nby function (self time)\n${summary.functions.map(line).join('\n')}\n\nby package or file, with what it calls (inclusive)\n${summary.inclusive.map(line).join('\n')}\n`,
  );
}

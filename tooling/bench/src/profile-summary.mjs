// Where a service spends its time: reads a V8 `.cpuprofile` (written by a
// run with BENCH_CPU_PROF=<dir>) and prints the heaviest functions by self
// time and the heaviest packages or files.
//   node tooling/bench/src/profile-summary.mjs <file.cpuprofile> [top]
import { readFileSync } from 'node:fs';

function moduleOf(url) {
  if (!url) return '(native / engine)';
  const pkg = /node_modules\/(?:\.pnpm\/[^/]+\/node_modules\/)?((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return pkg[1];
  const app = /\/(apps|packages)\/([^/]+)\//.exec(url);
  if (app) return `${app[1]}/${app[2]}`;
  if (url.startsWith('node:')) return url;
  return url;
}

export function summarizeProfile(profile, top = 25) {
  const deltas = profile.timeDeltas ?? [];
  const selfUs = new Map();
  profile.samples.forEach((id, i) => selfUs.set(id, (selfUs.get(id) ?? 0) + (deltas[i] ?? 0)));
  const total = [...selfUs.values()].reduce((a, b) => a + b, 0);
  const byFunction = new Map();
  const byModule = new Map();
  for (const node of profile.nodes) {
    const us = selfUs.get(node.id) ?? 0;
    if (!us) continue;
    const { functionName, url, lineNumber } = node.callFrame;
    const fn = `${functionName || '(anonymous)'} ${url ? `${url.replace(/^file:\/\/.*?\/(node_modules|apps|packages)\//, '$1/')}:${lineNumber + 1}` : ''}`.trim();
    byFunction.set(fn, (byFunction.get(fn) ?? 0) + us);
    const mod = ['(idle)', '(program)', '(garbage collector)'].includes(functionName) ? functionName : moduleOf(url);
    byModule.set(mod, (byModule.get(mod) ?? 0) + us);
  }
  const rank = (map) =>
    [...map.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([name, us]) => `${((100 * us) / total).toFixed(1).padStart(5)} %  ${name}`);
  return { totalMs: total / 1000, functions: rank(byFunction), modules: rank(byModule) };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [file, top] = process.argv.slice(2);
  if (!file) {
    process.stderr.write('usage: node profile-summary.mjs <file.cpuprofile> [top]\n');
    process.exit(2);
  }
  const summary = summarizeProfile(JSON.parse(readFileSync(file, 'utf8')), Number(top) || 25);
  process.stdout.write(
    `${file}: ${summary.totalMs.toFixed(0)} ms sampled\n\nby package or file (self time)\n${summary.modules.join('\n')}\n\nby function (self time)\n${summary.functions.join('\n')}\n`,
  );
}

// `pnpm bench:profile`: budget 1 with every service under `--cpu-prof`, then
// one summary per hot path, each cut to the samples of its own measured run:
// the gateway proxying an authenticated GET, the same GET anonymous, the
// catalog's GET /v1/products?q= called directly, identity's introspection.
// Profiling slows every process, so the budget's figures of this run are not
// judged against a plain run's; the summaries say where the time goes.
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { runBenchmarks } from './index.mjs';
import { summarizeProfile } from './profile-summary.mjs';

/** Each hot path: the run that loads it and the process that serves it. */
const PATHS = [
  { name: 'gateway-api-key-get', run: 'gateway', service: 'gateway', title: 'gateway, GET /v1/products?q= with an API key, proxied' },
  { name: 'gateway-anonymous-get', run: 'anonymous', service: 'gateway', title: 'gateway, the same GET without credentials' },
  { name: 'catalog-products-search', run: 'direct', service: 'catalog', title: 'catalog, GET /v1/products?q= called directly' },
  { name: 'identity-introspection', run: 'identity', service: 'identity', title: 'identity, POST /internal/introspect' },
  { name: 'reference-proxy', run: 'proxy', service: 'reference proxy', title: 'reference: bare express + http-proxy-middleware' },
];

const root = resolve(import.meta.dirname, '..', '..', '..');
const dir = resolve(process.env.BENCH_CPU_PROF || join(root, '.data', 'bench', 'profiles', new Date().toISOString().replace(/[:.]/g, '-')));
mkdirSync(dir, { recursive: true });
process.env.BENCH_CPU_PROF = dir;
process.env.BENCH_ONLY ??= 'gateway';
process.env.BENCH_MODULE_COUNT ??= '0';
process.env.BENCH_IDLE_SECONDS ??= '3';

const code = process.env.BENCH_PROFILE_SUMMARY_ONLY ? 0 : await runBenchmarks();
const { pids, windows } = JSON.parse(readFileSync(join(dir, 'runs.json'), 'utf8'));
const profileOf = (service) => {
  const pid = Object.keys(pids).find((p) => pids[p] === service);
  const file = readdirSync(dir).find((f) => f.endsWith('.cpuprofile') && f.split('.').includes(pid));
  return file ? join(dir, file) : null;
};
const table = (rows) => ['| share of busy CPU | where |', '|---:|---|', ...rows.map((r) => `| ${(100 * r.share).toFixed(1)} % | \`${r.name}\` |`)].join('\n');
const out = [`# CPU profiles of budget 1 (${new Date().toISOString()})`, '', `Profiles: ${dir}`, ''];
for (const p of PATHS) {
  const file = profileOf(p.service);
  if (!file || !windows[p.run]) {
    out.push(`## ${p.title}`, '', 'no profile', '');
    continue;
  }
  const s = summarizeProfile(JSON.parse(readFileSync(file, 'utf8')), 20, windows[p.run]);
  out.push(`## ${p.title}`, '', `${file.slice(dir.length + 1)}: ${s.busyMs.toFixed(0)} ms busy in the ${((windows[p.run].endUs - windows[p.run].startUs) / 1e6).toFixed(1)} s run`, '');
  out.push('By package, or file of our own (self time):', '', table(s.modules), '', 'By function (self time):', '', table(s.functions), '');
  out.push('By package or file of our own, with everything it calls (inclusive; a stage\'s whole share):', '', table(s.inclusive), '');
}
const summary = join(dir, 'summary.md');
writeFileSync(summary, `${out.join('\n')}\n`);
process.stdout.write(`Profile summaries: ${summary}\n`);
process.exit(code);

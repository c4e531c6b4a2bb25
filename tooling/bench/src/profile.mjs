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
  { name: 'catalog-behind-gateway', run: 'gateway', service: 'catalog', title: 'catalog, the same GET forwarded by the gateway' },
  { name: 'identity-introspection', run: 'identity', service: 'identity', title: 'identity, POST /internal/introspect' },
  { name: 'reference-proxy', run: 'proxy', service: 'reference proxy', title: 'reference: bare express + http-proxy-middleware' },
];

/** Self time grouped into the stages a request passes through; the first pattern that matches a package or file wins. */
const STAGES = [
  ['garbage collection', /^\(garbage collector\)$/],
  ['Redis (ioredis), the per-minute limit, admit', /^(ioredis|rate-limiter-flexible|standard-as-callback|denque|cluster-key-slot|redis-parser|service-kit\/limits\.js|gateway\/limits\/|gateway\/stages\/(admit|fail-open)\.js)/],
  ['proxying (http-proxy, HTTP client, agent)', /^(http-proxy|http-proxy-middleware|eventemitter3|requires-port|gateway\/routes\/(service-proxy|peek-body|refused-body)\.js|node:_http_client|node:_http_agent|node:url)/],
  ['express and its router', /^(express|router|parseurl|forwarded|proxy-addr|path-to-regexp|finalhandler|on-finished|ee-first|debug|depd|accepts|negotiator|type-is|media-typer|content-type|mime-types|send|fresh|range-parser|qs|safe-buffer)$/],
  ['request context, metrics, security headers', /^(service-kit\/(request-context|metrics|app|http)\.js|prom-client|pino|tdigest|bintrees|gateway\/routes\/security-headers\.js|gateway\/app\.js)/],
  ['authentication (key cache, token, internal signing)', /^(gateway\/auth\/|lru-cache|service-kit\/internal-auth\.js|node:internal\/crypto|jose)/],
  ['the other gateway stages (route, CORS, budgets, in-flight, forward)', /^(gateway\/|service-kit\/address-key\.js|ipaddr\.js)/],
  ['body parsing', /^(body-parser|raw-body|iconv-lite|bytes|http-errors|service-kit\/(json-depth|body-deadline|error-handler)\.js)/],
  ['the service\'s own routes and data', /^(catalog|identity|shops|requests)\/|^zod$|^service-kit\//],
  ['Node HTTP server, streams, sockets, (program)', /^(node:|\(program\))/],
];

function stageShares(modules) {
  const shares = new Map();
  for (const m of modules) {
    const stage = STAGES.find(([, re]) => re.test(m.name))?.[0] ?? 'engine and native code (writev, string writes, builtins)';
    shares.set(stage, (shares.get(stage) ?? 0) + m.share);
  }
  return [...shares.entries()].sort((a, b) => b[1] - a[1]).map(([name, share]) => ({ name, share }));
}

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
  const all = summarizeProfile(JSON.parse(readFileSync(file, 'utf8')), 10_000, windows[p.run]);
  out.push(`## ${p.title}`, '', `${file.slice(dir.length + 1)}: ${s.busyMs.toFixed(0)} ms busy in the ${((windows[p.run].endUs - windows[p.run].startUs) / 1e6).toFixed(1)} s run`, '');
  out.push('By stage (self time of the packages and files each is made of):', '', table(stageShares(all.modules)), '');
  out.push('By package, or file of our own (self time):', '', table(s.modules), '', 'By function (self time):', '', table(s.functions), '');
  out.push('By package or file of our own, with everything it calls (inclusive; a stage\'s whole share):', '', table(s.inclusive), '');
}
const summary = join(dir, 'summary.md');
writeFileSync(summary, `${out.join('\n')}\n`);
process.stdout.write(`Profile summaries: ${summary}\n`);
process.exit(code);

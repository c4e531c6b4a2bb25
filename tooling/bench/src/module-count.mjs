// Preload (`node --import <this file> dist/main.js`) that counts the modules
// a service loads from disk: every JavaScript file V8 compiles, ESM and
// CommonJS alike, as the inspector's Debugger.scriptParsed reports them (a
// file URL or an absolute path). Node's own built-in modules, JSON files and
// code made with eval or new Function are not counted. On SIGUSR2 it writes
// the count so far, and the count per package, to BENCH_MODULE_COUNT_FILE.
//
// The inspector slows loading down and keeps script data alive, so the bench
// uses this only in a separate start of each service, never in the processes
// whose CPU and memory it measures.
import { Session } from 'node:inspector';
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const self = import.meta.url;
const seen = new Set();
const session = new Session();
session.connect();
session.on('Debugger.scriptParsed', ({ params }) => {
  const { url } = params;
  if (url === self) return;
  if (url.startsWith('file://')) seen.add(fileURLToPath(url));
  else if (url.startsWith('/')) seen.add(url);
});
session.post('Debugger.enable');

/** `node_modules/<pkg>` (last one in the path, scope included), else `apps/<app>`, `packages/<pkg>` or `tooling/<pkg>`. */
function packageOf(path) {
  const parts = path.split('/');
  const nm = parts.lastIndexOf('node_modules');
  if (nm >= 0) return parts[nm + 1]?.startsWith('@') ? `${parts[nm + 1]}/${parts[nm + 2]}` : (parts[nm + 1] ?? '?');
  const ws = parts.findIndex((p) => p === 'apps' || p === 'packages' || p === 'tooling');
  return ws >= 0 ? `${parts[ws]}/${parts[ws + 1]}` : '?';
}

process.on('SIGUSR2', () => {
  const byPackage = {};
  for (const path of seen) byPackage[packageOf(path)] = (byPackage[packageOf(path)] ?? 0) + 1;
  const sorted = Object.fromEntries(Object.entries(byPackage).sort((a, b) => b[1] - a[1]));
  writeFileSync(process.env.BENCH_MODULE_COUNT_FILE, JSON.stringify({ modules: seen.size, byPackage: sorted }));
});

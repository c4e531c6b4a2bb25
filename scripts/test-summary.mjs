// Sums the vitest JSON reports of every package into the one closing line
// CI reads: "N passed, N failed, N skipped". `--clean` removes old reports
// first, so a package whose tests did not run cannot count stale results.
import { existsSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const reports = ['apps', 'packages', 'tooling'].flatMap((dir) =>
  existsSync(join(root, dir))
    ? readdirSync(join(root, dir)).map((name) => join(root, dir, name, '.vitest', 'results.json'))
    : [],
);

if (process.argv.includes('--clean')) {
  for (const file of reports) rmSync(file, { force: true });
  process.exit(0);
}

let passed = 0;
let failed = 0;
let skipped = 0;
for (const file of reports) {
  if (!existsSync(file)) continue;
  const r = JSON.parse(readFileSync(file, 'utf8'));
  passed += r.numPassedTests ?? 0;
  failed += (r.numFailedTests ?? 0) + (r.numRuntimeErrorTestSuites ?? 0);
  skipped += (r.numPendingTests ?? 0) + (r.numTodoTests ?? 0);
}
console.log(`${passed} passed, ${failed} failed, ${skipped} skipped`);
process.exit(failed > 0 ? 1 : 0);

// The README of every app, package and tool: where the generated tables
// (environment variables, service-kit's modules) are written.
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';

export function readmesUnder(root) {
  return ['apps', 'packages', 'tooling'].flatMap((group) => {
    const dir = path.join(root, group);
    if (!existsSync(dir)) return [];
    return readdirSync(dir, { withFileTypes: true })
      .filter((d) => d.isDirectory() && existsSync(path.join(dir, d.name, 'README.md')))
      .map((d) => path.join(dir, d.name, 'README.md'));
  });
}

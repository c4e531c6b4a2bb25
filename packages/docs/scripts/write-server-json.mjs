// Writes server.json, the entry the operator publishes to the official MCP
// Registry, at the repository root (where mcp-publisher reads it), for the
// production deployment's PUBLIC_BASE_URL: the one in the production overlay
// (infra/k8s/overlays/production), or --base-url <url>. A test checks the
// committed file against the generator and the registry's schema.
import { readFileSync, writeFileSync } from 'node:fs';
import { buildRegistryServerJson } from '../dist/index.js';

const repoRoot = new URL('../../../', import.meta.url);

function productionBaseUrl() {
  const overlay = readFileSync(new URL('infra/k8s/overlays/production/kustomization.yaml', repoRoot), 'utf8');
  const match = /^\s*-\s*PUBLIC_BASE_URL=(\S+)\s*$/m.exec(overlay);
  if (!match) throw new Error('the production overlay sets no PUBLIC_BASE_URL');
  return match[1];
}

const flag = process.argv.indexOf('--base-url');
const baseUrl = flag === -1 ? productionBaseUrl() : process.argv[flag + 1];
if (!baseUrl) throw new Error('--base-url needs a URL');
const target = new URL('server.json', repoRoot);
writeFileSync(target, `${JSON.stringify(buildRegistryServerJson(baseUrl), null, 2)}\n`);
console.log(`wrote ${target.pathname} for ${baseUrl}`);

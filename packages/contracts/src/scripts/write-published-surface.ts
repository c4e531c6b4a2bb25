// `pnpm surface`: records the MCP tools and REST operations as published in
// `published-surface.json`, which the compatibility test holds the tables to.
// Run it when a release adds tools, operations or fields, and commit the file
// with them; from then on removing any of them fails the test.
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { formatSurface, publishedSurface } from '../published-surface.js';

const out = process.argv[2] ?? join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'published-surface.json');
const surface = publishedSurface();
writeFileSync(out, formatSurface(surface));
console.log(`wrote ${out}: ${Object.keys(surface.mcp_tools).length} MCP tools, ${Object.keys(surface.operations).length} operations`);

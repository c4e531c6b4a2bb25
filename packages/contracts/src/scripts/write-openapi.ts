// `pnpm openapi`: writes the OpenAPI document for a base URL (default the local one).
import { writeFileSync } from 'node:fs';
import { buildOpenApiDocument } from '../openapi.js';

const baseUrl = process.argv[2] ?? 'http://localhost:8080';
const out = process.argv[3] ?? 'openapi.json';
writeFileSync(out, JSON.stringify(buildOpenApiDocument({ publicBaseUrl: baseUrl }), null, 2) + '\n');
console.log(`wrote ${out} for ${baseUrl}`);

// The two linters API tooling runs on an OpenAPI document, with their
// recommended rules: a warning here is one a user of the document would see.
import { createConfig, lintFromString } from '@redocly/openapi-core';
import { Spectral } from '@stoplight/spectral-core';
import { oas } from '@stoplight/spectral-rulesets';
import { describe, expect, it } from 'vitest';
import { buildOpenApiDocument } from './openapi.js';

const doc = buildOpenApiDocument({ publicBaseUrl: 'https://api.example.de' });

async function redoclyProblems(document: object): Promise<string[]> {
  const config = await createConfig({ extends: ['recommended'] });
  const problems = await lintFromString({ source: JSON.stringify(document), absoluteRef: 'openapi.json', config });
  return problems.map((p) => `${p.severity} ${p.ruleId}: ${p.message} at ${p.location[0]?.pointer ?? ''}`);
}

async function spectralProblems(document: object): Promise<string[]> {
  const spectral = new Spectral();
  spectral.setRuleset({ extends: [oas] } as Parameters<Spectral['setRuleset']>[0]);
  const results = await spectral.run(JSON.stringify(document));
  return results.map((r) => `${r.severity} ${String(r.code)}: ${r.message} at /${r.path.join('/')}`);
}

// Spectral takes seconds on a shared machine; the default 5 s is too tight.
describe('OpenAPI document under lint', { timeout: 30_000 }, () => {
  it('gives no Redocly problem with the recommended rules', async () => {
    expect(await redoclyProblems(doc)).toEqual([]);
  });

  it('gives no Spectral problem with spectral:oas', async () => {
    expect(await spectralProblems(doc)).toEqual([]);
  });

  it('is linted by rules that do flag a document without license, tags or descriptions', async () => {
    const bare = structuredClone(doc) as { info: Record<string, unknown>; tags?: unknown; paths: Record<string, Record<string, { description?: string }>> };
    delete bare.info.license;
    delete bare.tags;
    delete bare.paths['/v1/products']!.get!.description;

    expect((await redoclyProblems(bare)).join('\n')).toContain('info-license');
    const spectral = (await spectralProblems(bare)).join('\n');
    expect(spectral).toContain('operation-tag-defined');
    expect(spectral).toContain('operation-description');
  });
});

// The discovery documents: each generated from the operation table and the
// contracts, and each checked against the specification it follows. The MCP
// schemas are vendored in test/schemas/ (sources in test/schemas/README.md): the server
// card schema of the draft extension, and the official MCP Registry's
// server.json schema 2025-12-11, byte for byte, so this test needs no network.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { LIMITS } from '@msa/contracts';
import { Validator, type Schema } from '@cfworker/json-schema';
import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { AGENT_SKILL_NAMES } from './agent-skill-names.js';
import { buildAgentSkillsIndex, renderAgentSkill, skillFrontMatter } from './agent-skills.js';
import { buildApiCatalog, entryPointLinks } from './api-catalog.js';
import { AI_CRAWLERS, contentUsageOf, parseContentSignal, renderRobotsTxt, renderSitemapXml } from './crawling.js';
import { buildMcpCatalog, buildMcpServerCard, buildRegistryServerJson, registryServerName, PUBLISHER_META_KEY } from './mcp-server-card.js';
import { MCP_PROTOCOL_VERSIONS, MCP_SERVER_INFO } from './mcp-surface.js';

const BASE = 'https://merch.example.net';
const production = { publicBaseUrl: BASE, sandbox: false };
const sandbox = { publicBaseUrl: BASE, sandbox: true };

const readJson = (url: URL) => JSON.parse(readFileSync(url, 'utf8')) as Record<string, unknown>;
const vendor = (name: string) => new URL(`../test/schemas/${name}`, import.meta.url);
const repoFile = (name: string) => new URL(`../../../${name}`, import.meta.url);
const addFormats = addFormatsModule as unknown as (ajv: Ajv) => void;

function registryValidator() {
  const ajv = new Ajv({ strict: false, allErrors: true });
  addFormats(ajv);
  return ajv.compile(readJson(vendor('mcp-registry-server.2025-12-11.schema.json')));
}

/** The draft 2020-12 server card schema, through a validator whose public API takes that draft. */
function serverCardValidator() {
  const { $defs, $schema } = readJson(vendor('mcp-server-card.schema.json'));
  const validator = new Validator({ $schema, $defs, $ref: '#/$defs/ServerCard' } as Schema, '2020-12', false);
  return (card: unknown) => validator.validate(card);
}

describe('robots.txt', () => {
  const text = renderRobotsTxt(production);
  const lines = text.trimEnd().split('\n');

  it('lets everyone read the documents and keeps crawlers off the sign-in, consent and form pages of both environments', () => {
    expect(text).toContain('User-agent: *\n');
    expect(text).toContain('Allow: /\n');
    for (const path of ['/oauth/authorize', '/oauth/consent/', '/developers/keys']) {
      expect(lines).toContain(`Disallow: ${path}`);
      expect(lines).toContain(`Disallow: /sandbox${path}`);
    }
  });

  it('names the AI crawlers, with the rules of everyone', () => {
    for (const name of ['GPTBot', 'ClaudeBot', 'Google-Extended', 'PerplexityBot', 'CCBot']) expect(lines).toContain(`User-agent: ${name}`);
    const groups = text.split('\n\n').filter((g) => g.includes('User-agent:'));
    const rules = (g: string) => g.split('\n').filter((l) => !l.startsWith('User-agent:') && !l.startsWith('#'));

    expect(groups).toHaveLength(2);
    expect(rules(groups[0]!)).toEqual(rules(groups[1]!));
    expect(AI_CRAWLERS.every((name) => groups[0]!.includes(`User-agent: ${name}\n`))).toBe(true);
  });

  it('states search=yes, ai-input=yes, ai-train=no by default, as Content-Signal and as aipref Content-Usage', () => {
    expect(lines).toContain('Content-Signal: search=yes, ai-input=yes, ai-train=no');
    expect(lines).toContain('Content-Usage: train-ai=n, search=y');
  });

  it('states the signal a deployment sets', () => {
    const signal = parseContentSignal('ai-train=yes, search=no');

    expect(renderRobotsTxt(production, { contentSignal: signal })).toContain('Content-Signal: search=no, ai-train=yes\n');
    expect(contentUsageOf(signal)).toBe('train-ai=y, search=n');
  });

  it('refuses a signal it does not know', () => {
    expect(() => parseContentSignal('ai-train=maybe')).toThrow(/ai-train=maybe/);
    expect(() => parseContentSignal('train=no')).toThrow(/train=no/);
    expect(() => parseContentSignal('search=yes, search=no')).toThrow(/twice/);
    expect(() => parseContentSignal('')).toThrow();
  });

  it('ends with the sitemap', () => {
    expect(lines.at(-1)).toBe(`Sitemap: ${BASE}/sitemap.xml`);
  });
});

describe('sitemap.xml', () => {
  it('lists the portal, llms.txt, agents.md, OpenAPI, versioning and onboarding on the base and the sandbox', () => {
    const xml = renderSitemapXml(production);
    const locs = [...xml.matchAll(/<loc>([^<]+)<\/loc>/g)].map((m) => m[1]);

    expect(xml).toMatch(/^<\?xml version="1.0" encoding="UTF-8"\?>\n<urlset xmlns="http:\/\/www.sitemaps.org\/schemas\/sitemap\/0.9">/);
    for (const base of [BASE, `${BASE}/sandbox`]) {
      for (const path of ['/developers', '/llms.txt', '/agents.md', '/openapi.json', '/v1/versioning', '/v1/onboarding']) expect(locs).toContain(`${base}${path}`);
    }
    expect(renderSitemapXml(sandbox)).toBe(xml);
  });
});

describe('the API catalog and the entry points\' Link field', () => {
  it('has one anchor for the API and one for the sandbox, each with service-desc, service-doc and service-meta', () => {
    const { linkset } = buildApiCatalog(production);

    expect(linkset.map((l) => l.anchor)).toEqual([BASE, `${BASE}/sandbox`]);
    for (const entry of linkset) {
      expect(entry['service-desc']).toEqual([expect.objectContaining({ href: `${entry.anchor}/openapi.json` })]);
      expect(entry['service-doc'].map((l) => l.href)).toContain(`${entry.anchor}/developers`);
      expect(entry['service-meta'].map((l) => l.href)).toContain(`${entry.anchor}/v1/versioning`);
    }
    expect(linkset[1]!['service-meta'].map((l) => l.href)).toContain(`${BASE}/.well-known/oauth-protected-resource/sandbox`);
  });

  it('links service-desc, service-doc, api-catalog, describedby and the alternate form', () => {
    const links = entryPointLinks(production, { url: `${BASE}/`, alternateType: 'text/markdown' });

    for (const rel of ['service-desc', 'service-doc', 'api-catalog', 'describedby', 'alternate']) expect(links).toContain(`; rel="${rel}"`);
  });
});

describe('the MCP server card', () => {
  const validate = serverCardValidator();

  it('is a valid server card on production and on the sandbox', () => {
    for (const ctx of [production, sandbox]) {
      const card = buildMcpServerCard(ctx);
      const result = validate(card);
      expect(result.valid, JSON.stringify(result.errors)).toBe(true);
    }
  });

  it('names the endpoint as it names itself, with both remotes and their protocol versions', () => {
    const card = buildMcpServerCard(production);

    expect(card).toMatchObject({ name: `net.example.merch/${MCP_SERVER_INFO.name}`, version: MCP_SERVER_INFO.version, title: MCP_SERVER_INFO.title, websiteUrl: `${BASE}/developers` });
    expect(card.remotes.map((r) => r.url)).toEqual([`${BASE}/mcp`, `${BASE}/sandbox/mcp`]);
    for (const remote of card.remotes) {
      expect(remote.type).toBe('streamable-http');
      expect(remote.supportedProtocolVersions).toEqual([...MCP_PROTOCOL_VERSIONS]);
      expect(remote.headers).toEqual([expect.objectContaining({ name: 'Authorization', isRequired: false, isSecret: true })]);
    }
  });

  it('puts the sandbox remote first on the sandbox card', () => {
    expect(buildMcpServerCard(sandbox).remotes.map((r) => r.url)).toEqual([`${BASE}/sandbox/mcp`, `${BASE}/mcp`]);
  });

  it('lists the OAuth routes and metadata of both resources', () => {
    const meta = buildMcpServerCard(production)._meta[PUBLISHER_META_KEY] as { authorization: Record<string, string>[] };

    expect(meta.authorization[0]).toMatchObject({
      resource: `${BASE}/mcp`,
      protected_resource_metadata: `${BASE}/.well-known/oauth-protected-resource/mcp`,
      authorization_server_metadata: `${BASE}/.well-known/oauth-authorization-server`,
      authorization_endpoint: `${BASE}/oauth/authorize`,
      token_endpoint: `${BASE}/oauth/token`,
    });
    expect(meta.authorization[1]).toMatchObject({
      resource: `${BASE}/sandbox/mcp`,
      protected_resource_metadata: `${BASE}/.well-known/oauth-protected-resource/sandbox/mcp`,
    });
  });

  it('is listed in the catalog with its sandbox copy', () => {
    expect(buildMcpCatalog(production)).toEqual({
      specVersion: '1.0',
      entries: [
        { identifier: 'urn:air:merch.example.net:mcp:merch-shop-agent-api', type: 'application/mcp-server-card+json', url: `${BASE}/mcp/server-card` },
        { identifier: 'urn:air:merch.example.net:mcp:merch-shop-agent-api-sandbox', type: 'application/mcp-server-card+json', url: `${BASE}/sandbox/mcp/server-card` },
      ],
    });
  });

  it('takes its registry name from the host', () => {
    expect(registryServerName('http://localhost:8080')).toBe('localhost/merch-shop-agent-api');
    expect(registryServerName('http://127.0.0.1:8080/')).toBe('1.0.0.127/merch-shop-agent-api');
  });
});

describe('the MCP Registry entry (server.json)', () => {
  const validate = registryValidator();
  const productionBaseUrl = /^\s*-\s*PUBLIC_BASE_URL=(\S+)\s*$/m.exec(readFileSync(repoFile('infra/k8s/overlays/production/kustomization.yaml'), 'utf8'))?.[1];

  it('validates against the registry schema 2025-12-11', () => {
    const entry = buildRegistryServerJson(BASE);

    expect(validate(entry), JSON.stringify(validate.errors)).toBe(true);
    expect(entry.$schema).toBe('https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json');
    expect(entry.description.length).toBeLessThanOrEqual(100);
    // The registry keeps at most 4 kB of publisher-provided metadata.
    expect(Buffer.byteLength(JSON.stringify(entry._meta[PUBLISHER_META_KEY]))).toBeLessThanOrEqual(4096);
  });

  it('is what the repository holds for the production deployment (pnpm registry:server-json writes it)', () => {
    const committed = readJson(repoFile('server.json'));

    expect(validate(committed), JSON.stringify(validate.errors)).toBe(true);
    expect(committed).toEqual(buildRegistryServerJson(productionBaseUrl!));
  });

  it('vendors the registry schema byte for byte', () => {
    const digest = createHash('sha256').update(readFileSync(vendor('mcp-registry-server.2025-12-11.schema.json'))).digest('hex');

    expect(digest).toBe('3fba09590c99f61735d234822279f4223fab9e300c0a81e81c91ab62a4114de0');
  });
});

describe('agent skills', () => {
  const index = buildAgentSkillsIndex(production);

  it('publishes an index in the discovery 0.2.0 shape with a skill for the catalog, quotes and shop requests', () => {
    expect(index.$schema).toBe('https://schemas.agentskills.io/discovery/0.2.0/schema.json');
    expect(index.skills.map((s) => s.name)).toEqual(['browse-catalog', 'get-quote', 'request-merch-shop']);
    for (const skill of index.skills) {
      expect(skill.name).toMatch(/^[a-z0-9]+(-[a-z0-9]+)*$/);
      expect(skill.type).toBe('skill-md');
      expect(skill.description.length).toBeLessThanOrEqual(1024);
      expect(skill.url).toBe(`${BASE}/.well-known/agent-skills/${skill.name}/SKILL.md`);
      expect(skill.digest).toMatch(/^sha256:[0-9a-f]{64}$/);
    }
  });

  it('names the digest and description of each SKILL.md as served', () => {
    for (const name of AGENT_SKILL_NAMES) {
      const body = renderAgentSkill(name, production);
      const entry = index.skills.find((s) => s.name === name)!;

      expect(entry.digest).toBe(`sha256:${createHash('sha256').update(body).digest('hex')}`);
      expect(skillFrontMatter(body)).toEqual({ name, description: entry.description });
      expect(body).not.toContain('{{');
    }
  });

  it('states the facts of the contracts, as agents.md does', () => {
    expect(renderAgentSkill('browse-catalog', production)).toContain(`${LIMITS.ratePerMinuteAnonymous} requests a minute without credentials`);
    expect(renderAgentSkill('request-merch-shop', production)).toContain(`up to ${LIMITS.productsPerShopRequest} products`);
    expect(renderAgentSkill('request-merch-shop', production)).toContain(`${BASE}/sandbox/mcp`);
  });

  it('describes quotes over REST and MCP', () => {
    const skill = renderAgentSkill('get-quote', production);

    expect(skill).toContain(`POST ${BASE}/v1/quotes`);
    expect(skill).toContain('`get_quote`');
    expect(skill).toContain('quote_id');
  });
});

// The discovery checks the agent-readiness scanners run (robots, sitemap,
// link headers, Markdown negotiation, AI rules, content signals, MCP server
// card, agent skills, API catalog, OAuth discovery and protected-resource
// metadata), run the way a scanner runs them: from the base URL only,
// following what each document names, against the whole system. Each check
// is one test that says what a scanner needs to mark it "pass".
import { createHash } from 'node:crypto';
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { buildRegistryServerJson } from '@msa/docs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSystem, type System } from '../src/system.js';

const PROOF = 'v=MCPv1; k=ed25519; p=MCowBQYDK2VwAyEAd8pV3y6hJ7C4t6bD1wM0j8Nq5G2sQ0sZr3vX9yLk4eA=';

let system: System;
let base: string;

beforeAll(async () => {
  system = await startSystem({
    name: 'discovery-readiness',
    // A scanner fetches dozens of documents from one address; the anonymous minute is not under test.
    gatewayEnv: { RATE_LIMIT_ANON_PER_MINUTE: '10000', MCP_REGISTRY_AUTH: PROOF },
  });
  base = system.baseUrl;
});

afterAll(async () => {
  await system?.close();
});

const get = (url: string, headers: Record<string, string> = {}) => fetch(url.startsWith('http') ? url : `${base}${url}`, { headers });

// --- robots.txt as RFC 9309 reads it ---------------------------------------

interface RobotsGroup {
  agents: string[];
  rules: { allow: boolean; path: string }[];
  other: Map<string, string[]>;
}

interface Robots {
  groups: RobotsGroup[];
  sitemaps: string[];
  /** Lines that are neither a record, a comment nor blank. */
  invalid: string[];
}

/** Groups are consecutive user-agent lines and the rules after them (RFC 9309 §2.1). */
function parseRobots(text: string): Robots {
  const robots: Robots = { groups: [], sitemaps: [], invalid: [] };
  let current: RobotsGroup | undefined;
  let lastWasAgent = false;
  for (const raw of text.split('\n')) {
    const line = raw.replace(/#.*$/, '').trim();
    if (line === '') continue;
    const match = /^([A-Za-z-]+)\s*:\s*(.*)$/.exec(line);
    if (!match) {
      robots.invalid.push(raw);
      continue;
    }
    const field = match[1]!.toLowerCase();
    const value = match[2]!.trim();
    if (field === 'sitemap') {
      robots.sitemaps.push(value);
      continue;
    }
    if (field === 'user-agent') {
      if (!lastWasAgent || !current) robots.groups.push((current = { agents: [], rules: [], other: new Map() }));
      current.agents.push(value.toLowerCase());
      lastWasAgent = true;
      continue;
    }
    lastWasAgent = false;
    if (!current) {
      robots.invalid.push(raw);
      continue;
    }
    if (field === 'allow' || field === 'disallow') current.rules.push({ allow: field === 'allow', path: value });
    else current.other.set(field, [...(current.other.get(field) ?? []), value]);
  }
  return robots;
}

/** The group that governs a crawler: its own product token, else `*` (RFC 9309 §2.2.1). */
function groupFor(robots: Robots, agent: string): RobotsGroup | undefined {
  const token = agent.toLowerCase();
  return robots.groups.find((g) => g.agents.includes(token)) ?? robots.groups.find((g) => g.agents.includes('*'));
}

/** The longest matching rule decides; on a tie Allow wins; no rule allows (RFC 9309 §2.2.2). */
function allowed(group: RobotsGroup | undefined, path: string): boolean {
  const matching = (group?.rules ?? []).filter((r) => r.path !== '' && path.startsWith(r.path));
  if (matching.length === 0) return true;
  const longest = Math.max(...matching.map((r) => r.path.length));
  return matching.some((r) => r.path.length === longest && r.allow);
}

async function readRobots(): Promise<{ res: Response; robots: Robots; text: string }> {
  const res = await get('/robots.txt');
  const text = await res.text();
  return { res, robots: parseRobots(text), text };
}

// --- RFC 8288 Link fields --------------------------------------------------

interface Link {
  href: string;
  params: Record<string, string>;
}

/** Splits a Link field value on the commas between link-values (not inside <…> or quotes). */
function parseLinkHeader(value: string | null): Link[] {
  if (!value) return [];
  const links: Link[] = [];
  const re = /<([^>]*)>((?:\s*;\s*[a-zA-Z*-]+\s*=\s*(?:"[^"]*"|[^;,\s]+))*)\s*(?:,|$)/g;
  for (const m of value.matchAll(re)) {
    const params: Record<string, string> = {};
    for (const p of m[2]!.matchAll(/;\s*([a-zA-Z*-]+)\s*=\s*(?:"([^"]*)"|([^;,\s]+))/g)) params[p[1]!.toLowerCase()] = p[2] ?? p[3]!;
    links.push({ href: m[1]!, params });
  }
  return links;
}

const withRel = (links: Link[], rel: string) => links.filter((l) => l.params.rel?.split(/\s+/).includes(rel));

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

describe('agent-readiness discovery checks', () => {
  it('robots: /robots.txt is plain text of RFC 9309 records with a User-agent group', async () => {
    const { res, robots } = await readRobots();

    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(robots.invalid).toEqual([]);
    expect(robots.groups.length).toBeGreaterThan(0);
    const everyone = groupFor(robots, 'SomeCrawler');
    expect(allowed(everyone, '/llms.txt')).toBe(true);
    expect(allowed(everyone, '/openapi.json')).toBe(true);
    for (const path of ['/oauth/authorize?client_id=x', '/oauth/consent/abc', '/sandbox/oauth/authorize', '/sandbox/oauth/consent/abc']) {
      expect(allowed(everyone, path), path).toBe(false);
    }
  });

  it('sitemap: robots.txt names a sitemap of <urlset> whose every document answers', async () => {
    const { robots } = await readRobots();

    expect(robots.sitemaps).toEqual([`${base}/sitemap.xml`]);
    const res = await get(robots.sitemaps[0]!);
    const xml = await res.text();
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/xml/);
    expect(xml).toMatch(/<urlset xmlns="http:\/\/www\.sitemaps\.org\/schemas\/sitemap\/0\.9">/);
    const locs = [...xml.matchAll(/<loc>([^<]+)<\/loc>/g)].map((m) => m[1]!);
    for (const path of ['/developers', '/llms.txt', '/agents.md', '/openapi.json', '/v1/versioning', '/v1/onboarding']) {
      expect(locs).toContain(`${base}${path}`);
      expect(locs).toContain(`${base}/sandbox${path}`);
    }
    for (const loc of locs) expect((await get(loc)).status, loc).toBe(200);
  });

  it('link headers: / and /developers name service-desc, service-doc, api-catalog, describedby and a Markdown alternate, all answering', async () => {
    for (const page of ['/', '/developers']) {
      const links = parseLinkHeader((await get(page)).headers.get('link'));

      expect(withRel(links, 'service-desc').map((l) => l.href), page).toEqual([`${base}/openapi.json`]);
      expect(withRel(links, 'service-doc').map((l) => l.href), page).toEqual([`${base}/developers`]);
      expect(withRel(links, 'api-catalog').map((l) => l.href), page).toEqual([`${base}/.well-known/api-catalog`]);
      expect(withRel(links, 'describedby'), page).toHaveLength(1);
      expect(withRel(links, 'alternate'), page).toEqual([{ href: `${base}${page}`, params: expect.objectContaining({ type: 'text/markdown' }) }]);
      for (const link of links) expect((await get(link.href)).status, `${page} → ${link.href}`).toBe(200);
    }
  });

  it('markdown negotiation: Accept: text/markdown gets Markdown on / and /developers, browsers keep their type', async () => {
    for (const [page, type] of [['/', 'application/json'], ['/developers', 'text/html']] as const) {
      const markdown = await get(page, { accept: 'text/markdown' });
      const browser = await get(page, { accept: 'text/html,application/xhtml+xml,application/json;q=0.9,*/*;q=0.8' });

      expect(markdown.status).toBe(200);
      expect(markdown.headers.get('content-type')).toBe('text/markdown; charset=utf-8');
      expect(await markdown.text()).toMatch(/^# /);
      expect(markdown.headers.get('vary')).toContain('Accept');
      expect(browser.headers.get('content-type')).toContain(page === '/' ? 'application/json' : type);
    }
  });

  it('AI rules: robots.txt names the AI crawlers, and each may read the documents but not the sign-in pages', async () => {
    const { robots } = await readRobots();

    for (const bot of ['GPTBot', 'OAI-SearchBot', 'ChatGPT-User', 'ClaudeBot', 'Claude-User', 'Google-Extended', 'PerplexityBot', 'CCBot', 'Applebot-Extended']) {
      const group = groupFor(robots, bot);
      expect(group?.agents, bot).toContain(bot.toLowerCase());
      expect(allowed(group, '/llms.txt'), bot).toBe(true);
      expect(allowed(group, '/.well-known/agent-skills/index.json'), bot).toBe(true);
      expect(allowed(group, '/oauth/authorize'), bot).toBe(false);
    }
  });

  it('content signals: every group states search=yes, ai-input=yes, ai-train=no, and the aipref Content-Usage agrees', async () => {
    const { robots } = await readRobots();

    for (const group of robots.groups) {
      const [signal] = group.other.get('content-signal') ?? [];
      expect(signal).toBeDefined();
      const pairs = Object.fromEntries(signal!.split(',').map((p) => p.trim().split('=') as [string, string]));
      expect(pairs).toEqual({ search: 'yes', 'ai-input': 'yes', 'ai-train': 'no' });
      expect(group.other.get('content-usage')).toEqual(['train-ai=n, search=y']);
    }
  });

  it('MCP server card: at /mcp/server-card and the well-known paths, naming remotes a client connects to as the card says', async () => {
    const card = (await (await get('/mcp/server-card', { accept: 'application/mcp-server-card+json' })).json()) as {
      name: string;
      version: string;
      title: string;
      description: string;
      websiteUrl: string;
      remotes: { type: string; url: string; supportedProtocolVersions: string[]; headers: { name: string; isRequired: boolean; isSecret: boolean }[] }[];
      _meta: Record<string, { authorization: { resource: string; protected_resource_metadata: string; authorization_endpoint: string }[] }>;
    };

    for (const path of ['/.well-known/mcp/server-card.json', '/.well-known/mcp.json']) {
      const res = await get(path);
      expect(res.status, path).toBe(200);
      expect(res.headers.get('access-control-allow-origin'), path).toBe('*');
      expect(await res.json(), path).toEqual(card);
    }
    expect(card.remotes.map((r) => [r.type, r.url])).toEqual([
      ['streamable-http', `${base}/mcp`],
      ['streamable-http', `${base}/sandbox/mcp`],
    ]);
    for (const remote of card.remotes) expect(remote.headers).toEqual([expect.objectContaining({ name: 'Authorization', isRequired: false, isSecret: true })]);
    const sandboxCard = (await (await get('/sandbox/mcp/server-card')).json()) as typeof card;
    expect(sandboxCard.remotes[0]!.url).toBe(`${base}/sandbox/mcp`);

    // What the card says matches what the endpoint says once connected.
    const v1 = new ClientV1({ name: 'readiness-scan', version: '1.0.0' });
    const transport = new TransportV1(new URL(card.remotes[0]!.url));
    await v1.connect(transport);
    const info = v1.getServerVersion()!;
    await v1.close();
    expect(card.name).toMatch(new RegExp(`/${info.name}$`));
    expect(card.version).toBe(info.version);
    expect(card.remotes[0]!.supportedProtocolVersions).toContain(transport.protocolVersion);
    for (const version of card.remotes[0]!.supportedProtocolVersions.filter((v) => v > transport.protocolVersion!)) {
      const v2 = new ClientV2({ name: 'readiness-scan', version: '1.0.0' }, { versionNegotiation: { mode: { pin: version as '2026-07-28' } } });
      await v2.connect(new TransportV2(new URL(card.remotes[1]!.url)));
      expect(v2.getServerVersion()?.version, version).toBe(card.version);
      await v2.close();
    }

    // The OAuth route is listed, and its documents answer.
    const [auth] = Object.values(card._meta).map((m) => m.authorization);
    expect(auth?.[0]).toMatchObject({ resource: `${base}/mcp`, authorization_endpoint: `${base}/oauth/authorize` });
    expect((await get(auth![0]!.protected_resource_metadata)).status).toBe(200);

    // The catalogs list both cards.
    for (const path of ['/.well-known/mcp/catalog.json', '/.well-known/ai-catalog.json']) {
      const catalog = (await (await get(path)).json()) as { entries: { type: string; url: string }[] };
      expect(catalog.entries.map((e) => e.url), path).toEqual([`${base}/mcp/server-card`, `${base}/sandbox/mcp/server-card`]);
      expect(catalog.entries.every((e) => e.type === 'application/mcp-server-card+json'), path).toBe(true);
    }
  });

  it('MCP Registry: server.json is served as generated for this deployment, and the domain proof as configured', async () => {
    const entry = await get('/server.json');
    const proof = await get('/.well-known/mcp-registry-auth', { accept: 'text/plain', 'user-agent': 'mcp-registry/1.0' });

    expect(await entry.json()).toEqual(buildRegistryServerJson(base));
    expect(proof.status).toBe(200);
    expect(proof.headers.get('content-type')).toMatch(/^text\/plain/);
    expect((await proof.text()).trim()).toBe(PROOF);
  });

  it('agent skills: the 0.2.0 index names each SKILL.md with a digest of the bytes served', async () => {
    const res = await get('/.well-known/agent-skills/index.json');
    const index = (await res.json()) as { $schema: string; skills: { name: string; type: string; description: string; url: string; digest: string }[] };

    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(index.$schema).toBe('https://schemas.agentskills.io/discovery/0.2.0/schema.json');
    expect(index.skills.map((s) => s.name)).toEqual(['browse-catalog', 'get-quote', 'request-merch-shop']);
    for (const skill of index.skills) {
      const md = await get(new URL(skill.url, `${base}/.well-known/agent-skills/index.json`).href);
      const body = await md.text();
      expect(md.status, skill.name).toBe(200);
      expect(md.headers.get('content-type'), skill.name).toMatch(/^text\/markdown/);
      expect(skill.type).toBe('skill-md');
      expect(skill.digest).toBe(`sha256:${sha256(body)}`);
      expect(body).toMatch(new RegExp(`^---\\nname: ${skill.name}\\ndescription: `));
    }
    expect((await get('/.well-known/agent-skills/no-such-skill/SKILL.md')).status).toBe(404);
  });

  it('API catalog: RFC 9727 linkset for the API and the sandbox, each link answering; HEAD names the catalog', async () => {
    const res = await get('/.well-known/api-catalog');
    const head = await fetch(`${base}/.well-known/api-catalog`, { method: 'HEAD' });
    const catalog = (await res.json()) as { linkset: Array<Record<string, unknown> & { anchor: string }> };

    expect(res.headers.get('content-type')).toMatch(/^application\/linkset\+json; profile="https:\/\/www\.rfc-editor\.org\/info\/rfc9727"/);
    expect(catalog.linkset.map((l) => l.anchor)).toEqual([base, `${base}/sandbox`]);
    for (const entry of catalog.linkset) {
      for (const rel of ['service-desc', 'service-doc', 'service-meta']) {
        const targets = entry[rel] as { href: string }[];
        expect(targets.length, `${entry.anchor} ${rel}`).toBeGreaterThan(0);
        for (const { href } of targets) expect((await get(href)).status, href).toBe(200);
      }
    }
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
    expect(withRel(parseLinkHeader(head.headers.get('link')), 'api-catalog').map((l) => l.href)).toEqual([`${base}/.well-known/api-catalog`]);
  });

  it('answers other methods on the discovery documents with the 405 envelope and Allow', async () => {
    for (const path of ['/robots.txt', '/.well-known/api-catalog', '/mcp/server-card', '/.well-known/agent-skills/index.json']) {
      const res = await fetch(`${base}${path}`, { method: 'POST' });

      expect(res.status, path).toBe(405);
      expect(res.headers.get('allow'), path).toBe('GET, HEAD, OPTIONS');
      expect(((await res.json()) as { error: { code: string } }).error.code, path).toBe('method_not_allowed');
    }
  });

  it('OAuth discovery: RFC 8414 metadata of the issuer and of the sandbox issuer, with the authorization code flow', async () => {
    for (const [path, issuer] of [
      ['/.well-known/oauth-authorization-server', base],
      ['/.well-known/oauth-authorization-server/sandbox', `${base}/sandbox`],
    ] as const) {
      const res = await get(path);
      const meta = (await res.json()) as Record<string, unknown>;

      expect(res.status, path).toBe(200);
      expect(meta.issuer).toBe(issuer);
      expect(meta).toMatchObject({ authorization_endpoint: `${issuer}/oauth/authorize`, token_endpoint: `${issuer}/oauth/token` });
      expect(meta.response_types_supported).toContain('code');
      expect(meta.code_challenge_methods_supported).toEqual(['S256']);
      expect(meta.grant_types_supported).toEqual(expect.arrayContaining(['authorization_code', 'client_credentials']));
    }
  });

  it('protected resource metadata: RFC 9728 for the API and /mcp, found from a 401 as a client finds it', async () => {
    const challenge = await get('/v1/me');
    const metadataUrl = /resource_metadata="([^"]+)"/.exec(challenge.headers.get('www-authenticate') ?? '')?.[1];

    expect(challenge.status).toBe(401);
    expect(metadataUrl).toBe(`${base}/.well-known/oauth-protected-resource`);
    for (const [path, resource] of [
      ['/.well-known/oauth-protected-resource', base],
      ['/.well-known/oauth-protected-resource/mcp', `${base}/mcp`],
      ['/.well-known/oauth-protected-resource/sandbox/mcp', `${base}/sandbox/mcp`],
    ] as const) {
      const meta = (await (await get(path)).json()) as { resource: string; authorization_servers: string[] };

      expect(meta.resource, path).toBe(resource);
      expect(meta.authorization_servers.length, path).toBeGreaterThan(0);
      for (const issuer of meta.authorization_servers) {
        const asPath = issuer === base ? '/.well-known/oauth-authorization-server' : `/.well-known/oauth-authorization-server${issuer.slice(base.length)}`;
        expect((await get(asPath)).status, `${path} → ${issuer}`).toBe(200);
      }
    }
  });
});

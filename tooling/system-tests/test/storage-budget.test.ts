// The storage budget of docs/operations.md ("Storage per caller"), measured:
// one address creates the largest thing of every key family through the
// gateway (credentials, a registered client, a metadata document, a consent
// with its code e-mail, a grant refreshed, the largest quote, the largest
// sandbox and live shop requests delivered by the worker), then every key
// the system holds is read with MEMORY USAGE and PTTL and held against its
// row. A key no row names fails the test, so a new family cannot arrive
// without its line in the budget.
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { LIMITS } from '@msa/contracts';
import { startSmtpSink, type SmtpSink } from '@msa/test-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSystem, type System } from '../src/system.js';
import { ConsentSession, consentCode, pkce, startAgentHost, type AgentHost } from './oauth-agent-hosts-support.js';

const MB = 1024 * 1024;
/** What one address may add to Redis in a day, across every path (DESIGN.md, "Limits"). */
const ADDRESS_DAY_BUDGET_BYTES = 100 * MB;
const ADDRESS = '203.0.113.7';

export interface BudgetRow {
  family: string;
  /** A glob under REDIS_KEY_PREFIX; `{intake}` at its start stands for QUEUE_PREFIX. */
  pattern: string;
  largestBytes: number;
  /** The bound is per stream entry (the internal list). */
  perEntry: boolean;
  /** Seconds; null for a key kept without expiry (bounded by its own rule, as the row says). */
  ttlSeconds: number | null;
  /** Keys one address can add in a UTC day at the default limits; null where none (shared or per-process keys). */
  perAddressDay: number | null;
  /** The same for one principal, from any number of addresses. */
  perPrincipalDay: number | null;
  /** Deleted once its work is done (logos after the operator e-mail): not always present after a run. */
  transient: boolean;
}

const UNITS: Record<string, number> = { B: 1, kB: 1024, KB: 1024, MB };
const DURATIONS: Record<string, number> = { s: 1, min: 60, h: 3600, d: 86_400 };

function parseBytes(text: string): number {
  const m = /^([\d.,]+)\s*(B|kB|KB|MB)$/.exec(text.trim());
  if (!m) throw new Error(`not a size: ${text}`);
  return Number(m[1]!.replace(/,/g, '')) * UNITS[m[2]!]!;
}

function parseTtl(text: string): number | null {
  const t = text.trim();
  if (/^none\b/.test(t)) return null;
  const m = /^([\d,]+)\s*(s|min|h|d)\b/.exec(t);
  if (!m) throw new Error(`not a lifetime: ${text}`);
  return Number(m[1]!.replace(/,/g, '')) * DURATIONS[m[2]!]!;
}

/** The rows of the table under "### Storage per caller" in docs/operations.md. */
export function readBudget(markdown: string): BudgetRow[] {
  const section = markdown.split(/^### Storage per caller\s*$/m)[1];
  if (!section) throw new Error('docs/operations.md has no "### Storage per caller" section');
  const lines = section.split('\n');
  const start = lines.findIndex((l) => l.startsWith('| family'));
  const rows: BudgetRow[] = [];
  for (const line of lines.slice(start + 2)) {
    if (!line.startsWith('|')) break;
    const cells = line.split('|').slice(1, -1).map((c) => c.trim());
    const [family, key, , largest, ttl, perAddress, perPrincipal] = cells as [string, string, string, string, string, string, string];
    rows.push({
      family,
      pattern: key.replace(/^`|`$/g, ''),
      largestBytes: parseBytes(largest.replace(/per entry$/, '')),
      perEntry: /per entry$/.test(largest),
      ttlSeconds: parseTtl(ttl),
      perAddressDay: count(perAddress),
      perPrincipalDay: count(perPrincipal),
      transient: /transient/.test(ttl),
    });
  }
  return rows;
}

function count(text: string): number | null {
  const m = /^[\d,]+/.exec(text);
  return m ? Number(m[0].replace(/,/g, '')) : null;
}

const globToRegExp = (glob: string) => new RegExp(`^${glob.replace(/[.+?^$()|[\]\\{}]/g, '\\$&').replace(/\*/g, '.*')}$`);

const rows = readBudget(readFileSync(new URL('../../../docs/operations.md', import.meta.url), 'utf8'));

let system: System;
let smtp: SmtpSink;
let host: AgentHost;

const fromAddress = { 'x-forwarded-for': ADDRESS };

async function call(method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(`${system.baseUrl}${path}`, {
    method,
    headers: { ...fromAddress, ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
}

/** About the largest shop request that is stored: every text at its bound, colors up to SHOP_REQUEST_MAX_STORED_BYTES. */
function largestShopRequest(email: string) {
  // Colors fill what the stored bound leaves: each unlisted one is stored twice (the body and its warning).
  const product = (i: number) => ({
    product: 'bio-t-shirt-unisex',
    colors: Array.from({ length: 4 }, (_, j) => `Farbe ${i}-${j} `.padEnd(60, 'x')),
    designs: Array.from({ length: 2 }, () => ({ position: 'Brust links'.padEnd(80, '.'), width_cm: 10, comment: 'd'.repeat(500) })),
    comment: 'c'.repeat(500),
  });
  const body = {
    organization: { name: 'N'.repeat(120), type: 'unternehmen', contact_name: 'K'.repeat(120), email, phone: '0'.repeat(50) },
    shop_name: 'S'.repeat(LIMITS.shopNameMax),
    products: Array.from({ length: LIMITS.productsPerShopRequest }, (_, i) => product(i)),
    occasion: 'o'.repeat(LIMITS.occasionMax),
    team_size: 250,
    notes: 'n'.repeat(LIMITS.notesMax),
  };
  return body;
}

/** The largest quote: every line, every color unlisted (each one a warning). */
const largestQuote = {
  organization_type: 'unternehmen',
  lines: Array.from({ length: LIMITS.quoteLinesMax }, (_, i) => ({
    product: 'bio-t-shirt-unisex',
    quantity: 1 + i,
    decoration: 'stick',
    colors: Array.from({ length: 20 }, (_, j) => `Farbe ${i}-${j} `.padEnd(60, 'x')),
  })),
};

beforeAll(async () => {
  smtp = await startSmtpSink();
  host = await startAgentHost();
  system = await startSystem({
    name: 'storage-budget',
    worker: { smtpUrl: smtp.url },
    env: { CLIENT_METADATA_ALLOW_PRIVATE_NETWORKS: 'true' },
    gatewayEnv: { TRUST_PROXY: 'loopback' },
  });
}, 120_000);

afterAll(async () => {
  await system?.close();
  await host?.close();
  await smtp?.close();
});

/** Runs one consent to the end and returns the tokens of its grant. */
async function consent(clientId: string, redirectUri: string, email: string, mode: 'live' | 'sandbox') {
  const { verifier, challenge } = pkce();
  const url = new URL(`${system.baseUrl}/oauth/authorize`);
  const params = {
    response_type: 'code',
    client_id: clientId,
    redirect_uri: redirectUri,
    code_challenge: challenge,
    code_challenge_method: 'S256',
    state: 's'.repeat(2048),
    scope: 'catalog:read requests:write requests:read',
    resource: system.baseUrl,
  };
  for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
  const session = new ConsentSession(fromAddress);
  const start = await session.authorize(url);
  expect(start.status).toBe(303);
  await session.page();
  await session.sendCode(email);
  const wrongCode = await session.post({ code: '000000', mode, decision: 'approve' });
  expect(wrongCode.status).not.toBe(303);
  await session.page();
  const redirect = await session.approve(await consentCode(smtp, email), mode);
  const code = redirect.searchParams.get('code')!;
  const token = await fetch(`${system.baseUrl}/oauth/token`, {
    method: 'POST',
    headers: { ...fromAddress, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: redirectUri, client_id: clientId, code_verifier: verifier, resource: system.baseUrl }),
  });
  expect(token.status).toBe(200);
  return (await token.json()) as { access_token: string; refresh_token: string };
}

async function refresh(clientId: string, refreshToken: string) {
  const res = await fetch(`${system.baseUrl}/oauth/token`, {
    method: 'POST',
    headers: { ...fromAddress, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: refreshToken, client_id: clientId }),
  });
  expect(res.status).toBe(200);
  return (await res.json()) as { access_token: string; refresh_token: string };
}

async function waitFor(check: () => Promise<boolean>, what: string, timeoutMs = 20_000) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`timed out waiting for ${what}`);
}

interface Measured {
  key: string;
  bytes: number;
  /** Entries of a stream, else 1. */
  entries: number;
  ttlSeconds: number | null;
}

async function measureAll(): Promise<Measured[]> {
  const keys: string[] = [];
  // The queue prefix and the list's entry markers open with `{` and the key prefix.
  for (const pattern of [`${system.prefix}*`, `{${system.prefix}*`]) {
    let cursor = '0';
    do {
      const [next, batch] = await system.redis.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
      cursor = next;
      keys.push(...batch);
    } while (cursor !== '0');
  }
  return Promise.all(
    [...new Set(keys)].map(async (key) => {
      const [bytes, pttl, type] = await Promise.all([system.redis.memory('USAGE', key, 'SAMPLES', 0), system.redis.pttl(key), system.redis.type(key)]);
      const entries = type === 'stream' ? await system.redis.xlen(key) : 1;
      return { key, bytes: Number(bytes ?? 0), entries, ttlSeconds: pttl < 0 ? null : pttl / 1000 };
    }),
  );
}

function rowOf(key: string): BudgetRow | undefined {
  const relative = key.startsWith(`{${system.prefix}`) ? `{${key.slice(system.prefix.length + 1)}` : key.slice(system.prefix.length);
  return rows.find((row) => globToRegExp(row.pattern).test(relative));
}

describe('the storage budget per caller', () => {
  it('adds up to at most 100 MB a day for one address, and so for one principal, at the default limits', () => {
    const perDay = (of: (row: BudgetRow) => number | null) => rows.reduce((sum, row) => sum + (of(row) ?? 0) * row.largestBytes, 0);
    expect(rows.length).toBeGreaterThan(30);
    expect(perDay((row) => row.perAddressDay)).toBeLessThanOrEqual(ADDRESS_DAY_BUDGET_BYTES);
    expect(perDay((row) => row.perPrincipalDay)).toBeLessThanOrEqual(perDay((row) => row.perAddressDay));
  });

  it('holds for the largest thing of every family that one address creates through the gateway', async () => {
    // Credentials with the longest name and address, and an Idempotency-Key record.
    const created = await call(
      'POST',
      '/v1/keys',
      { name: 'k'.repeat(LIMITS.keyNameMax), email: `${'e'.repeat(64)}@${'d'.repeat(60)}.example.org`, mode: 'live' },
      { 'idempotency-key': 'k'.repeat(255) },
    );
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const key = created.body as { api_key: string };
    const keyed = { authorization: `Bearer ${key.api_key}` };
    const wrong = await call('GET', '/v1/me', undefined, { authorization: `Bearer msa_test_${'x'.repeat(40)}` });
    expect(wrong.status).toBe(401);
    const wrongSecret = await fetch(`${system.baseUrl}/oauth/token`, {
      method: 'POST',
      headers: { ...fromAddress, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'client_credentials', client_id: (created.body as { client_id: string }).client_id, client_secret: 'wrong' }),
    });
    expect(wrongSecret.status).toBe(401);

    // A public client with every redirect URI at its longest.
    const registered = await call('POST', '/oauth/register', {
      client_name: 'R'.repeat(80),
      redirect_uris: [host.redirectUri, ...Array.from({ length: 9 }, (_, i) => `http://127.0.0.1:${9000 + i}/${'r'.repeat(2000)}`)],
      token_endpoint_auth_method: 'none',
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
    });
    expect(registered.status, JSON.stringify(registered.body)).toBe(201);
    const clientId = registered.body.client_id as string;
    const longestRedirect = (registered.body.redirect_uris as string[])[1]!;

    // A metadata-document client at its largest, cached, and a consent page opened for it.
    const cimd = host.serveClient('/clients/largest.json', 'M'.repeat(200), { client_uri: `https://example.org/${'u'.repeat(1900)}` });
    const cimdSession = new ConsentSession(fromAddress);
    const { challenge } = pkce();
    const opened = await cimdSession.authorize(
      `${system.baseUrl}/oauth/authorize?${new URLSearchParams({ response_type: 'code', client_id: cimd, redirect_uri: host.redirectUri, code_challenge: challenge, code_challenge_method: 'S256', state: 's'.repeat(2048) })}`,
    );
    expect(opened.status).toBe(303);
    // A document that cannot be fetched: its failure is remembered.
    const missing = await new ConsentSession(fromAddress).authorize(
      `${system.baseUrl}/oauth/authorize?${new URLSearchParams({ response_type: 'code', client_id: `${host.documentOrigin}/clients/missing.json`, redirect_uri: host.redirectUri, code_challenge: challenge, code_challenge_method: 'S256' })}`,
    );
    expect(missing.status).toBe(400);

    // A live and a sandbox consent to the end, one grant refreshed once.
    const live = await consent(clientId, longestRedirect, `live-${randomBytes(3).toString('hex')}@example.org`, 'live');
    const liveAgain = await refresh(clientId, live.refresh_token);
    const sandboxPerson = await consent(clientId, longestRedirect, `sandbox-${randomBytes(3).toString('hex')}@example.org`, 'sandbox');

    // The largest quote, anonymous, and named by the shop requests below.
    const quote = await call('POST', '/v1/quotes', largestQuote);
    expect(quote.status, JSON.stringify(quote.body).slice(0, 600)).toBe(201);
    const quoteId = quote.body.quote_id as string;

    // The largest sandbox request (a key, on /sandbox) and live request (the live grant), each with an Idempotency-Key.
    const sandbox = await call('POST', '/sandbox/v1/shop-requests', { ...largestShopRequest('kontakt@example.org'), quote_id: quoteId }, { ...keyed, 'idempotency-key': 'i'.repeat(255) });
    expect(sandbox.status, JSON.stringify(sandbox.body).slice(0, 600)).toBe(201);
    const liveRequest = await call(
      'POST',
      '/v1/shop-requests',
      { ...largestShopRequest(`kontakt-${randomBytes(3).toString('hex')}@example.org`), quote_id: quoteId },
      { authorization: `Bearer ${liveAgain.access_token}`, 'idempotency-key': 'l'.repeat(255) },
    );
    expect(liveRequest.status, JSON.stringify(liveRequest.body).slice(0, 600)).toBe(201);
    // Delivered: both e-mails sent and the list entry written.
    await waitFor(async () => (await system.redis.xlen(`${system.prefix}intake:list`)) === 1, 'the internal list entry');

    // An MCP handshake from the address (its own limiter).
    const mcp = await fetch(`${system.baseUrl}/mcp`, {
      method: 'POST',
      headers: { ...fromAddress, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'budget', version: '1' } } }),
    });
    expect(mcp.status).toBe(200);

    // The sandbox person erases their data: an erasure record.
    const erased = await call('DELETE', '/v1/me/data', undefined, { authorization: `Bearer ${sandboxPerson.access_token}` });
    expect(erased.status).toBe(204);

    const measured = await measureAll();
    if (process.env.STORAGE_BUDGET_REPORT) {
      for (const m of measured.sort((a, b) => a.key.localeCompare(b.key))) console.log(`${rowOf(m.key)?.family ?? '??'}\t${m.bytes}\t${m.ttlSeconds}\t${m.key}`);
    }
    const unknown = measured.filter((m) => !rowOf(m.key)).map((m) => m.key);
    expect(unknown, 'keys that no row of the storage table names').toEqual([]);

    const problems: string[] = [];
    for (const row of rows) {
      const found = measured.filter((m) => rowOf(m.key) === row);
      if (found.length === 0 && !row.transient) problems.push(`${row.family}: no key was created`);
      for (const m of found) {
        const bound = row.perEntry ? row.largestBytes * Math.max(1, m.entries) : row.largestBytes;
        if (m.bytes > bound) problems.push(`${row.family}: ${m.key} takes ${m.bytes} B, more than ${bound}`);
        if (row.ttlSeconds !== null && m.ttlSeconds === null) problems.push(`${row.family}: ${m.key} never expires`);
        if (row.ttlSeconds !== null && m.ttlSeconds !== null && m.ttlSeconds > row.ttlSeconds) {
          problems.push(`${row.family}: ${m.key} lives ${Math.round(m.ttlSeconds)} s, more than ${row.ttlSeconds}`);
        }
      }
    }
    expect(problems).toEqual([]);
    // Both kinds of shop request share a key pattern; the sandbox one lives at most 7 days.
    const sandboxTtl = await system.redis.pttl(`${system.prefix}shop-request:${sandbox.body.id as string}`);
    expect(sandboxTtl).toBeGreaterThan(0);
    expect(sandboxTtl).toBeLessThanOrEqual(7 * 86_400_000);
  }, 120_000);
});

/*
 * A rolling upgrade, one service at a time: each service of this checkout
 * runs beside the others of the previous release (releases.json), and each
 * service of the previous release beside the others of this checkout. In
 * every mix live shop requests through the gateway, one by REST and one by
 * MCP, are delivered once each (the operator e-mail at the SMTP sink, one
 * list entry) and the catalog and the shops answer, by REST and by MCP. The mixes name the contracts they cross: the IntakeJob
 * payload (requests and worker), the internal context and headers (gateway
 * and the services), the internal clients (mcp).
 */
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { send, sleep } from '../src/client.js';
import { drillConfig } from '../src/config.js';
import { OPERATOR_EMAIL, startDrillSystem, type DrillSystem, type ServiceRoot } from '../src/drill-system.js';
import { listEntries } from '../src/facts.js';
import { buildRelease, previousRelease, readReleases } from '../src/releases.js';
import { REPO_ROOT, type ServiceName } from '../src/service-process.js';
import { buildShopRequest, nextClientIp, shopRequestIdOf } from '../src/shop-request-drill.js';
import { printLogsOnFailure } from './support.js';

const SERVICES: ServiceName[] = ['catalog', 'shops', 'identity', 'requests', 'mcp', 'intake-worker', 'gateway'];

let previous: ServiceRoot;
let system: DrillSystem | undefined;

beforeAll(() => {
  previous = buildRelease(previousRelease(readReleases(), drillConfig.compatRelease), (line) => console.log(`compatibility: ${line}`));
}, 600_000);

afterEach(async () => {
  await system?.close();
  system = undefined;
});

/** Every service but `odd` from `others`; `odd` from `own` (undefined: this checkout). */
function mix(odd: ServiceName, own: ServiceRoot | undefined, others: ServiceRoot | undefined): Partial<Record<ServiceName, ServiceRoot>> {
  const roots: Partial<Record<ServiceName, ServiceRoot>> = {};
  for (const name of SERVICES) {
    const root = name === odd ? own : others;
    if (root) roots[name] = root;
  }
  return roots;
}

/** A JSON-RPC call to /mcp through the gateway, as a plain-HTTP MCP client sends it. */
async function callTool(baseUrl: string, auth: Record<string, string>, id: number, name: string, args: Record<string, unknown>) {
  const res = await fetch(`${baseUrl}/mcp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...auth },
    body: JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } }),
  });
  const body = (await res.json()) as { result?: { isError?: boolean; structuredContent?: Record<string, unknown> }; error?: unknown };
  return { status: res.status, isError: body.result?.isError ?? body.error !== undefined, content: body.result?.structuredContent, error: body.error };
}

/**
 * A live key, reads of the catalog and the shops (REST and MCP), then one
 * live shop request through REST and one through MCP: each delivered once,
 * one operator e-mail and one list entry.
 */
async function deliversAndReads(roots: Partial<Record<ServiceName, ServiceRoot>>) {
  system = await startDrillSystem({ roots });
  printLogsOnFailure(system);
  const { baseUrl } = system;

  const key = await send(`${baseUrl}/v1/keys`, {
    headers: { 'x-forwarded-for': nextClientIp() },
    body: { name: 'Compatibility agent', email: 'compat@example.org', mode: 'live' },
  });
  expect(key.status).toBe(201);
  const auth = { authorization: `Bearer ${String(key.body?.api_key)}` };

  const catalog = await send(`${baseUrl}/v1/products`, { method: 'GET', headers: auth });
  const shops = await send(`${baseUrl}/v1/shops`, { method: 'GET', headers: auth });
  const toolCatalog = await callTool(baseUrl, auth, 1, 'search_products', { q: 'shirt' });
  const toolShops = await callTool(baseUrl, auth, 2, 'list_public_shops', {});
  expect(catalog.status).toBe(200);
  expect(shops.status).toBe(200);
  expect(toolCatalog).toMatchObject({ status: 200, isError: false });
  expect(toolShops).toMatchObject({ status: 200, isError: false });

  const marker = Date.now();
  const rest = await send(`${baseUrl}/v1/shop-requests`, {
    headers: { ...auth, 'idempotency-key': `compat-rest-${marker}` },
    body: buildShopRequest('Compatibility shop REST', 1),
  });
  const tool = await callTool(baseUrl, auth, 3, 'create_shop_request', { ...buildShopRequest('Compatibility shop MCP', 2), idempotency_key: `compat-mcp-${marker}` });
  expect(rest.status).toBe(201);
  expect(tool).toMatchObject({ status: 200, isError: false });
  const ids = [String(rest.body?.id), String(tool.content?.id)];

  const operatorMails = () => system!.smtp.messages.filter((m) => m.rcptTo.includes(OPERATOR_EMAIL) && ids.includes(shopRequestIdOf(m) ?? ''));
  const listed = async () => (await listEntries(system!.redis)).filter((e) => ids.includes(e.requestId));
  const deadline = Date.now() + drillConfig.deliveryDeadlineMs;
  while ((operatorMails().length < ids.length || (await listed()).length < ids.length) && Date.now() < deadline) await sleep(200);
  // A second delivery of the same job would show within a moment.
  await sleep(500);

  const perId = (found: (string | undefined)[]) => ids.map((id) => found.filter((f) => f === id).length);
  expect(perId(operatorMails().map((m) => shopRequestIdOf(m)))).toEqual([1, 1]);
  expect(perId((await listed()).map((e) => e.requestId))).toEqual([1, 1]);
}

describe('the release a checkout is measured against', () => {
  const head = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: REPO_ROOT, encoding: 'utf8' }).trim();
  const first = readReleases()[0]!;

  it('is the one before a release recorded at HEAD, whose services are this checkout', () => {
    expect(previousRelease([first, { version: '99.0.0', commit: head }])).toEqual(first);
  });

  it('does not exist when the only release recorded is HEAD itself', () => {
    expect(() => previousRelease([{ version: '99.0.0', commit: head }])).toThrow(/no release whose services differ from HEAD/);
  });

});

describe('each service of this checkout beside the previous release of the others', () => {
  it.each(SERVICES)('new %s with the previous release of every other service delivers live requests once and answers reads', async (name) => {
    await deliversAndReads(mix(name, undefined, previous));
  });
});

describe('each service of the previous release beside this checkout of the others', () => {
  it.each(SERVICES)('previous %s with this checkout of every other service delivers live requests once and answers reads', async (name) => {
    await deliversAndReads(mix(name, previous, undefined));
  });
});

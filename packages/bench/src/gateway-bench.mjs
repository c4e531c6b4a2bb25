// Budget 1: authenticated `GET /v1/products?q=…` through the gateway against
// the same request sent straight to the catalog, both real processes on
// loopback. Identity runs too: the gateway resolves the API key through it
// (then from its cache) and the limiter still costs one Redis call per request.
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { createInternalSigner } from '@msa/service-kit';
import { measureLoad } from './load.mjs';
import { freePort, spawnService, waitForOk } from './processes.mjs';

/** High enough that the per-minute limit never answers 429 during the runs. */
export const BENCH_RATE_LIMIT_PER_MINUTE = 1_000_000_000;

export async function runGatewayBench({ root, redisEnv, redisPids, keyPrefix, sampler, services, settings, log }) {
  const [catalogPort, identityPort, gatewayPort, adminPort, nothingPort, catalogAdminPort, identityAdminPort] = await Promise.all(
    Array.from({ length: 7 }, freePort),
  );
  const secret = randomBytes(32).toString('hex');
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const publicBaseUrl = `http://127.0.0.1:${gatewayPort}`;
  const common = {
    NODE_ENV: 'production',
    LOG_LEVEL: 'warn',
    PUBLIC_BASE_URL: publicBaseUrl,
    INTERNAL_AUTH_SECRET: secret,
    ...redisEnv,
    REDIS_KEY_PREFIX: keyPrefix,
  };
  const nothing = `http://127.0.0.1:${nothingPort}`;

  const start = (name, env) => {
    const service = spawnService(root, { name, app: name, env: { ...common, ...env }, nodeArgs: settings.nodeArgs });
    services.push(service);
    sampler.watch(name, service.pid);
    return service;
  };

  log('starting catalog, identity and gateway');
  const catalog = start('catalog', { CATALOG_PORT: String(catalogPort), CATALOG_ADMIN_PORT: String(catalogAdminPort) });
  const identity = start('identity', {
    IDENTITY_PORT: String(identityPort),
    IDENTITY_ADMIN_PORT: String(identityAdminPort),
    TOKEN_SIGNING_KEY: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    TOKEN_SIGNING_KID: `bench-${randomBytes(4).toString('hex')}`,
  });
  const gateway = start('gateway', {
    GATEWAY_PORT: String(gatewayPort),
    GATEWAY_ADMIN_PORT: String(adminPort),
    CATALOG_URL: `http://127.0.0.1:${catalogPort}`,
    IDENTITY_URL: `http://127.0.0.1:${identityPort}`,
    SHOPS_URL: nothing,
    REQUESTS_URL: nothing,
    MCP_URL: nothing,
    RATE_LIMIT_PER_MINUTE: String(BENCH_RATE_LIMIT_PER_MINUTE),
  });
  // The gateway's /readyz also asks shops, requests and mcp, which this run does not need.
  await Promise.all([
    waitForOk(`http://127.0.0.1:${catalogPort}/readyz`, catalog),
    waitForOk(`http://127.0.0.1:${identityPort}/readyz`, identity),
    waitForOk(`${publicBaseUrl}/healthz`, gateway),
  ]);

  for (const service of [catalog, identity, gateway]) sampler.recordIdle(service.name, service.pid);

  const created = await fetch(`${publicBaseUrl}/v1/keys`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'bench', email: 'bench@example.com', mode: 'live', scopes: ['catalog:read'] }),
  });
  const key = await created.json();
  if (created.status !== 201) throw new Error(`POST /v1/keys answered ${created.status}: ${JSON.stringify(key)}`);
  const bearer = { authorization: `Bearer ${key.api_key}` };
  const me = await fetch(`${publicBaseUrl}/v1/me`, { headers: bearer });
  const principal = await me.json();
  if (me.status !== 200) throw new Error(`GET /v1/me answered ${me.status}: ${JSON.stringify(principal)}`);

  const path = `/v1/products?q=${encodeURIComponent(settings.query)}`;
  const sign = createInternalSigner(secret);
  // The gateway signs the same context for this principal; the token lives 60 s, so one per run.
  const direct = () => ({
    'x-internal-auth': sign('catalog', { principal, sandbox: false, ip: '127.0.0.1', request_id: 'bench-direct' }),
  });

  const viaGateway = await fetch(`${publicBaseUrl}${path}`, { headers: bearer });
  const viaCatalog = await fetch(`http://127.0.0.1:${catalogPort}${path}`, { headers: direct() });
  const [gatewayBody, catalogBody] = [await viaGateway.text(), await viaCatalog.text()];
  if (viaGateway.status !== 200 || viaCatalog.status !== 200) {
    throw new Error(`probe answered ${viaGateway.status} (gateway) and ${viaCatalog.status} (catalog): ${gatewayBody} ${catalogBody}`);
  }
  const total = JSON.parse(catalogBody).total;
  if (JSON.parse(gatewayBody).total !== total) throw new Error('the gateway and the catalog answered different results');

  const participants = [
    { name: 'bench (autocannon)', pid: process.pid },
    ...[gateway, catalog, identity].map((s) => ({ name: s.name, pid: s.pid })),
    ...redisPids,
  ];
  const load = { connections: settings.connections, warmupSeconds: settings.warmupSeconds, durationSeconds: settings.durationSeconds, participants };
  log(`catalog direct: ${settings.warmupSeconds} s warm-up + ${settings.durationSeconds} s, ${settings.connections} connections`);
  const catalogRun = await measureLoad({ url: `http://127.0.0.1:${catalogPort}${path}`, headers: direct(), ...load });
  log(`through the gateway: ${settings.warmupSeconds} s warm-up + ${settings.durationSeconds} s, ${settings.connections} connections`);
  const gatewayRun = await measureLoad({ url: `${publicBaseUrl}${path}`, headers: bearer, ...load });

  for (const service of [gateway, identity, catalog]) {
    sampler.unwatch(service.pid);
    await service.stop();
  }
  return { path, total, rateLimitPerMinute: BENCH_RATE_LIMIT_PER_MINUTE, responseBytes: catalogBody.length, direct: catalogRun, gateway: gatewayRun };
}

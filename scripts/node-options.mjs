// The V8 flags and the allocator setting every service runs with are written
// once, in the `ENV` of infra/Dockerfile's runtime stage: every container
// (docker-compose.yml, infra/k8s) starts from that image. `pnpm start` and the
// bench read them from there, so a local process runs as a deployed one.
//
// The young generation's size is a build argument (SEMI_SPACE_MB), because
// one size does not fit every service: 4 MB semi-spaces keep the HTTP
// services' RSS near their live heap, while the intake worker, which builds
// whole e-mails per job, spends less CPU per delivery with 16 MB (fewer
// scavenges promote less), at a higher RSS within its budget. The per-app
// values are in SERVICE_BUILD_ARGS; docker-compose.yml passes the same ones
// (a test compares them).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** Build arguments of infra/Dockerfile that differ by app, beside APP and PORT. */
export const SERVICE_BUILD_ARGS = {
  'intake-worker': { SEMI_SPACE_MB: '16' },
};

function dockerfileOf(root) {
  return readFileSync(join(root, 'infra', 'Dockerfile'), 'utf8');
}

/** `ARG NAME=default` lines of the Dockerfile's runtime stage and before. */
function argDefaults(dockerfile) {
  return Object.fromEntries([...dockerfile.matchAll(/^ARG ([A-Z_]+)=(\S+)$/gm)].map((m) => [m[1], m[2]]));
}

/**
 * NODE_OPTIONS of an app's image, e.g. `--max-semi-space-size=4
 * --max-old-space-size=1024`; without an app, the default every app gets
 * unless SERVICE_BUILD_ARGS says otherwise.
 */
export function serviceNodeOptions(root, app) {
  const dockerfile = dockerfileOf(root);
  const match = /^\s*NODE_OPTIONS="([^"]*)"/m.exec(dockerfile);
  if (!match) throw new Error('infra/Dockerfile sets no NODE_OPTIONS="…" in its runtime stage');
  const args = { ...argDefaults(dockerfile), ...(app ? SERVICE_BUILD_ARGS[app] : {}) };
  return match[1].replace(/\$\{([A-Z_]+)\}/g, (_, name) => {
    if (args[name] === undefined) throw new Error(`infra/Dockerfile's NODE_OPTIONS uses \${${name}}, which has no ARG default`);
    return args[name];
  });
}

/**
 * The environment variables of an app's image that shape a process's
 * memory: NODE_OPTIONS and glibc's MALLOC_ARENA_MAX (read by the C library
 * when the process starts, so it cannot go into NODE_OPTIONS).
 */
export function serviceMemoryEnv(root, app) {
  const arenas = /^\s*MALLOC_ARENA_MAX=(\d+)/m.exec(dockerfileOf(root));
  return { NODE_OPTIONS: serviceNodeOptions(root, app), ...(arenas ? { MALLOC_ARENA_MAX: arenas[1] } : {}) };
}

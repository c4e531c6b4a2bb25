// The V8 flags and the allocator setting every service runs with are written
// once, in the `ENV` of infra/Dockerfile's runtime stage: every container
// (docker-compose.yml, infra/k8s) starts from that image. `pnpm start` and the
// bench read them from there, so a local process runs as a deployed one.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

function dockerfileOf(root) {
  return readFileSync(join(root, 'infra', 'Dockerfile'), 'utf8');
}

/** NODE_OPTIONS of the service images, e.g. `--max-semi-space-size=4`. */
export function serviceNodeOptions(root) {
  const match = /^\s*NODE_OPTIONS="([^"]*)"/m.exec(dockerfileOf(root));
  if (!match) throw new Error('infra/Dockerfile sets no NODE_OPTIONS="…" in its runtime stage');
  return match[1];
}

/**
 * The environment variables of the service images that shape a process's
 * memory: NODE_OPTIONS and glibc's MALLOC_ARENA_MAX (read by the C library
 * when the process starts, so it cannot go into NODE_OPTIONS).
 */
export function serviceMemoryEnv(root) {
  const arenas = /^\s*MALLOC_ARENA_MAX=(\d+)/m.exec(dockerfileOf(root));
  return { NODE_OPTIONS: serviceNodeOptions(root), ...(arenas ? { MALLOC_ARENA_MAX: arenas[1] } : {}) };
}

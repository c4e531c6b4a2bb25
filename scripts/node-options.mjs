// The V8 flags every service runs with are written once, as the
// `ENV NODE_OPTIONS=…` of infra/Dockerfile's runtime stage: every container
// (docker-compose.yml, infra/k8s) starts from that image. `pnpm start` and the
// bench read them from there, so a local process runs as a deployed one.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** NODE_OPTIONS of the service images, e.g. `--max-semi-space-size=4`. */
export function serviceNodeOptions(root) {
  const dockerfile = readFileSync(join(root, 'infra', 'Dockerfile'), 'utf8');
  const match = /^\s*NODE_OPTIONS="([^"]*)"/m.exec(dockerfile);
  if (!match) throw new Error('infra/Dockerfile sets no NODE_OPTIONS="…" in its runtime stage');
  return match[1];
}

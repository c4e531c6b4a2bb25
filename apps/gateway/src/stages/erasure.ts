// Erasure: a person's `DELETE /v1/me/data` revokes every grant of theirs at
// identity. This replica also stops believing the grant of the token that
// asked, the moment the erasure succeeded, instead of when its remembered
// grant status expires (up to 5 s): the token used there gets 401 at once.
import type { Stage } from './exchange.js';

const ERASURE = 'erasePersonalData';

/** The `grant` claim of a bearer token authenticate has verified; only that claim is read. */
export function grantOfBearer(authorization: string | undefined): string | undefined {
  const token = /^Bearer\s+(\S+)$/i.exec(authorization ?? '')?.[1];
  const payload = token?.split('.')[1];
  if (!payload) return undefined;
  try {
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as { grant?: unknown };
    return typeof claims.grant === 'string' ? claims.grant : undefined;
  } catch {
    return undefined;
  }
}

export function createErasureStage({ revokedGrant }: { revokedGrant?: ((grant: string) => void) | undefined }): Stage {
  return (x, next) => {
    if (!revokedGrant || x.route.operation !== ERASURE || x.principal?.via !== 'oauth') return next(x);
    // Read before forward takes the credentials off the request.
    const grant = grantOfBearer(x.req.headers.authorization);
    if (grant) {
      x.res.once('finish', () => {
        if (x.res.statusCode >= 200 && x.res.statusCode < 300) revokedGrant(grant);
      });
    }
    return next(x);
  };
}

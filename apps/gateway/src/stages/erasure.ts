// Erasure: `DELETE /v1/me/data` revokes every grant of a person at identity,
// or deletes the credentials of an API key. This replica also stops
// believing the credential that asked, the moment the erasure succeeded,
// instead of when its remembered answer expires (a grant's status up to
// 5 s, a key up to KEY_CACHE_TTL_MS): it gets 401 at once here.
import { extractCredential } from '../auth/credentials.js';
import type { Handoff, Stage, View } from './exchange.js';

const ERASURE = 'erasePersonalData';

/** The `grant` claim of a bearer token authenticate has verified; only that claim is read. */
/** What erasure reads of the exchange and writes for the stages after it. */
export const ERASURE_HANDOFF = { reads: ['route', 'principal'], writes: [] } as const satisfies Handoff;

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

export interface ErasureOptions {
  revokedGrant?: ((grant: string) => void) | undefined;
  forgetKey?: ((apiKey: string) => void) | undefined;
}

export function createErasureStage({ revokedGrant, forgetKey }: ErasureOptions): Stage<View<typeof ERASURE_HANDOFF>> {
  return (x, next) => {
    if (x.route.operation !== ERASURE || !x.principal) return next(x);
    // Read before forward takes the credentials off the request.
    const credential = extractCredential(x.req.headers);
    let forgetCaller: (() => void) | undefined;
    if (credential?.kind === 'api_key' && forgetKey) forgetCaller = () => forgetKey(credential.value);
    const grant = credential?.kind === 'token' ? grantOfBearer(`Bearer ${credential.value}`) : undefined;
    if (grant && revokedGrant) forgetCaller = () => revokedGrant(grant);
    if (forgetCaller) {
      const forget = forgetCaller;
      x.res.once('finish', () => {
        if (x.res.statusCode >= 200 && x.res.statusCode < 300) forget();
      });
    }
    return next(x);
  };
}

// POST /oauth/revoke (RFC 7009).
import type { RequestHandler } from 'express';
import { appError } from '@msa/service-kit';
import type { OAuthDeps } from '../oauth-deps.js';
import { noStore } from './page-response.js';

export function revokeController(deps: OAuthDeps): RequestHandler {
  return async (req, res) => {
    const body = (req.body ?? {}) as Record<string, unknown>;
    if (typeof body.token !== 'string' || body.token === '') {
      throw appError('invalid_request', 'token is missing.', { fields: [{ field: 'token', message: 'is required' }] });
    }
    noStore(res);
    await deps.grants.revoke(body.token, typeof body.client_id === 'string' ? body.client_id : undefined);
    // RFC 7009 §2.2: 200 for a revoked token and for one that is not ours; what cannot be revoked was refused above.
    res.status(200).end();
  };
}

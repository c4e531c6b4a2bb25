// Identity's own check of an operation's credentials and scope, read from the
// operations table like every service's (service-kit's requireScope). The
// gateway answers first; this keeps the service right on its own, with the
// same Bearer challenge naming the resource metadata of the caller's environment.
import type { CallContext, Principal, RouteId } from '@msa/contracts';
import { appError, requireScope } from '@msa/service-kit';
import type { RequestHandler } from 'express';
import { issuerFor } from '../oauth/tokens/access-token.js';

export function requireCredentials(id: RouteId, publicBaseUrl: string): RequestHandler {
  return requireScope(id, {
    unauthorized: (req) => {
      const metadata = `${issuerFor(publicBaseUrl, req.ctx.sandbox)}/.well-known/oauth-protected-resource`;
      return appError('unauthorized', 'This resource needs credentials.', {
        headers: { 'WWW-Authenticate': `Bearer resource_metadata="${metadata}"` },
      });
    },
  });
}

/** The caller's principal behind requireCredentials, which let no call without one through. */
export function principalOf(ctx: CallContext): Principal {
  if (!ctx.principal) throw new Error('principalOf needs requireCredentials before it');
  return ctx.principal;
}

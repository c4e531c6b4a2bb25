import { Principal } from '@msa/contracts';
import { appError, methodNotAllowed } from '@msa/service-kit';
import { Router } from 'express';
import { issuerFor } from '../oauth/tokens/access-token.js';
import type { RouteDeps } from './context.js';

export function meRoutes(deps: RouteDeps): Router {
  const router = Router();
  router
    .route('/v1/me')
    .get((req, res) => {
      const principal = req.ctx.principal;
      if (!principal) {
        // The gateway answers this first; kept so the service is right on its own.
        const metadata = `${issuerFor(deps.publicBaseUrl, req.ctx.sandbox)}/.well-known/oauth-protected-resource`;
        throw appError('unauthorized', 'This resource needs credentials.', {
          headers: { 'WWW-Authenticate': `Bearer resource_metadata="${metadata}"` },
        });
      }
      res.setHeader('Cache-Control', 'private, no-store');
      res.json(Principal.parse(principal));
    })
    .all(methodNotAllowed({ publicBaseUrl: deps.publicBaseUrl }, ['GET']));
  return router;
}

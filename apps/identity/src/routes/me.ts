import { Principal } from '@msa/contracts';
import { methodNotAllowed, routePathOf } from '@msa/service-kit';
import { Router } from 'express';
import type { RouteDeps } from './context.js';
import { principalOf, requireCredentials } from './require-credentials.js';

export function meRoutes(deps: RouteDeps): Router {
  const router = Router();
  router
    .route(routePathOf('getCurrentPrincipal'))
    .get(requireCredentials('getCurrentPrincipal', deps.publicBaseUrl), (req, res) => {
      res.setHeader('Cache-Control', 'private, no-store');
      res.json(Principal.parse(principalOf(req.ctx)));
    })
    .all(methodNotAllowed({ publicBaseUrl: deps.publicBaseUrl }, ['GET']));
  return router;
}

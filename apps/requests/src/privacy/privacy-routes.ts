import { PersonalShopRequestQuery } from '@msa/contracts';
import { methodNotAllowed } from '@msa/service-kit';
import { Router } from 'express';
import { erasePersonalRequests, findPersonalRequests, type PersonalRequestDeps } from './personal-requests.js';

/**
 * Internal: identity (and the operator CLI through it) finds and erases a
 * person's shop requests. Never routed publicly: the gateway serves only the
 * operation table, and these calls need internal auth.
 */
export function privacyRoutes(deps: PersonalRequestDeps & { publicBaseUrl: string }): Router {
  const router = Router();
  const noStore = { 'Cache-Control': 'no-store' };
  router
    .route('/internal/privacy/shop-requests/find')
    .post(async (req, res) => {
      const query = PersonalShopRequestQuery.parse(req.body ?? {});
      res.set(noStore).json({ shop_requests: await findPersonalRequests(deps, query) });
    })
    .all(methodNotAllowed({ publicBaseUrl: deps.publicBaseUrl }, ['POST']));
  router
    .route('/internal/privacy/shop-requests/erase')
    .post(async (req, res) => {
      const query = PersonalShopRequestQuery.parse(req.body ?? {});
      res.set(noStore).json(await erasePersonalRequests(deps, query));
    })
    .all(methodNotAllowed({ publicBaseUrl: deps.publicBaseUrl }, ['POST']));
  return router;
}

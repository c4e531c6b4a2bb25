import { methodNotAllowed } from '@msa/service-kit';
import { Router } from 'express';
import { z } from 'zod';
import type { RouteDeps } from './context.js';

const GrantStatusRequest = z.object({ grant: z.string().regex(/^g[0-9A-Za-z]{24}$/) });

/**
 * Internal: the gateway asks whether the grant of an access token is still
 * active, so a reused code or refresh token revokes access tokens already
 * out, not only the next ones. Never routed publicly.
 */
export function grantStatusRoutes(deps: RouteDeps): Router {
  const router = Router();
  router
    .route('/internal/grant-status')
    .post(async (req, res) => {
      const parsed = GrantStatusRequest.safeParse(req.body ?? {});
      res.setHeader('Cache-Control', 'no-store');
      res.json({ active: parsed.success ? await deps.oauth.grantActive(parsed.data.grant) : false });
    })
    .all(methodNotAllowed({ publicBaseUrl: deps.publicBaseUrl }, ['POST']));
  return router;
}

import { PersonalDataExport } from '@msa/contracts';
import { methodNotAllowed, routePathOf } from '@msa/service-kit';
import { Router, type Request } from 'express';
import { principalOf, requireCredentials } from '../routes/require-credentials.js';
import { erasePersonalData, exportPersonalData, type DataSubject, type PersonalDataDeps } from './personal-data.js';

/**
 * `GET` and `DELETE /v1/me/data`: the caller's own data. A person (a token
 * of the authorization code grant) is the address they confirmed; anything
 * else is its credentials.
 */
export function privacyRoutes(deps: PersonalDataDeps & { publicBaseUrl: string }): Router {
  const router = Router();

  function subjectOf(req: Request): DataSubject {
    const principal = principalOf(req.ctx);
    return principal.confirmed_email ? { kind: 'person', email: principal.confirmed_email } : { kind: 'api_key', clientId: principal.id };
  }

  // The calls to the requests service act for the operator's privacy code, not as the principal: it owns no one's requests there.
  const ctxOf = (req: Request) => ({ ...req.ctx, principal: null });

  router
    .route(routePathOf('exportPersonalData'))
    .get(requireCredentials('exportPersonalData', deps.publicBaseUrl), async (req, res) => {
      const data = await exportPersonalData(deps, subjectOf(req), { ctx: ctxOf(req) });
      res.setHeader('Cache-Control', 'private, no-store');
      res.json(PersonalDataExport.parse(data));
    })
    .delete(requireCredentials('erasePersonalData', deps.publicBaseUrl), async (req, res) => {
      await erasePersonalData(deps, subjectOf(req), { ctx: ctxOf(req) });
      req.log.info('personal data erased');
      res.status(204).end();
    })
    .all(methodNotAllowed({ publicBaseUrl: deps.publicBaseUrl }, ['GET', 'DELETE']));
  return router;
}

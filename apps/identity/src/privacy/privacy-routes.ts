import { PersonalDataExport } from '@msa/contracts';
import { appError, methodNotAllowed } from '@msa/service-kit';
import { Router, type Request } from 'express';
import { issuerFor } from '../oauth/tokens/access-token.js';
import { erasePersonalData, exportPersonalData, type DataSubject, type PersonalDataDeps } from './personal-data.js';

/**
 * `GET` and `DELETE /v1/me/data`: the caller's own data. A person (a token
 * of the authorization code grant) is the address they confirmed; anything
 * else is its credentials.
 */
export function privacyRoutes(deps: PersonalDataDeps & { publicBaseUrl: string }): Router {
  const router = Router();

  function subjectOf(req: Request): DataSubject {
    const principal = req.ctx.principal;
    if (!principal) {
      // The gateway answers this first; kept so the service is right on its own.
      const metadata = `${issuerFor(deps.publicBaseUrl, req.ctx.sandbox)}/.well-known/oauth-protected-resource`;
      throw appError('unauthorized', 'This resource needs credentials.', {
        headers: { 'WWW-Authenticate': `Bearer resource_metadata="${metadata}"` },
      });
    }
    return principal.confirmed_email ? { kind: 'person', email: principal.confirmed_email } : { kind: 'api_key', clientId: principal.id };
  }

  // The calls to the requests service act for the operator's privacy code, not as the principal: it owns no one's requests there.
  const ctxOf = (req: Request) => ({ ...req.ctx, principal: null });

  router
    .route('/v1/me/data')
    .get(async (req, res) => {
      const data = await exportPersonalData(deps, subjectOf(req), { ctx: ctxOf(req) });
      res.setHeader('Cache-Control', 'private, no-store');
      res.json(PersonalDataExport.parse(data));
    })
    .delete(async (req, res) => {
      await erasePersonalData(deps, subjectOf(req), { ctx: ctxOf(req) });
      req.log.info('personal data erased');
      res.status(204).end();
    })
    .all(methodNotAllowed({ publicBaseUrl: deps.publicBaseUrl }, ['GET', 'DELETE']));
  return router;
}

// The OAuth front door: one router for the authorization endpoint, the
// consent page, the token endpoint, registration and revocation, each a
// thin controller in controllers/.
import { methodNotAllowed, routePathOf } from '@msa/service-kit';
import { Router } from 'express';
import { authorizeController } from './controllers/authorize.js';
import { createBrowserBinding } from './controllers/browser-binding.js';
import { consentController } from './controllers/consent.js';
import { registerController } from './controllers/register.js';
import { revokeController } from './controllers/revoke.js';
import { tokenController } from './controllers/token.js';
import type { OAuthDeps } from './oauth-deps.js';
import { OAUTH_PATHS } from './paths.js';

export function oauthRouter(deps: OAuthDeps): Router {
  const router = Router();
  const only = (methods: string[]) => methodNotAllowed({ publicBaseUrl: deps.publicBaseUrl }, methods);
  const browser = createBrowserBinding(deps.publicBaseUrl);
  const consent = consentController(deps, browser);

  router.route(OAUTH_PATHS.token).post(tokenController(deps)).all(only(['POST']));
  router.route(OAUTH_PATHS.register).post(registerController(deps)).all(only(['POST']));
  router.route(OAUTH_PATHS.revoke).post(revokeController(deps)).all(only(['POST']));
  router.route(OAUTH_PATHS.authorize).get(authorizeController(deps, browser)).all(only(['GET']));
  router.route(routePathOf('consent')).get(consent.show).post(consent.answer).all(only(['GET', 'POST']));
  return router;
}

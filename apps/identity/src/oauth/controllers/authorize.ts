// GET /oauth/authorize. The request is checked in the order RFC 6749
// §4.1.2.1 asks: an unknown client or a redirect URI that is not registered
// ends on an error page here, never in a redirect. Every later problem goes
// back to the client with `error`, `state` and `iss` only for a verified
// client: anyone can register a client whose redirect URI is their own page,
// and an error answered with a redirect there would make this host an open
// redirector (RFC 9700 §4.11.2), so every other client's error ends on our
// error page too.
import { pageLanguageOf } from '@msa/contracts';
import { appError } from '@msa/service-kit';
import type { Request, RequestHandler, Response } from 'express';
import { randomBase62 } from '../../domain/credentials.js';
import type { ClientLookup } from '../clients/client-directory.js';
import type { OAuthDeps } from '../oauth-deps.js';
import type { Lang } from '../pages/consent-page.js';
import { consentUrl } from '../paths.js';
import { checkAuthorizationRequest, first, redirectUriOf, redirectWith, type RequestCheck } from '../rules/authorization-request.js';
import { digest } from '../rules/digest.js';
import type { AuthorizationRequest } from '../store/oauth-records.js';
import { issuerFor } from '../tokens/access-token.js';
import type { BrowserBinding } from './browser-binding.js';
import { errorPage, refuse, wantsJson } from './page-response.js';

type Refused = Extract<ClientLookup, { ok: false }>;

/** An unknown client, an unusable document, or a cap on document fetches (429 at once). */
function refuseClient(req: Request, res: Response, lang: Lang, lookup: Refused): void {
  if (lookup.problem !== 'busy') return refuse(req, res, lang, lookup.problem, 'invalid_request', lookup.detail ?? 'The client is not known.');
  res.setHeader('Retry-After', String(lookup.retryAfterSeconds));
  if (wantsJson(req)) throw appError('rate_limited', lookup.detail, { headers: { 'Retry-After': String(lookup.retryAfterSeconds) } });
  errorPage(res, lang, 429, 'busy', lookup.detail);
}

export function authorizeController(deps: OAuthDeps, browser: BrowserBinding): RequestHandler {
  return async (req, res) => {
    const lang = pageLanguageOf(req.query.lang ?? req.query.ui_locales, req.get('accept-language'));
    const lookup = await deps.clients.lookup(first(req.query.client_id), deps.addressKey(req.ctx.ip));
    if (!lookup.ok) return refuseClient(req, res, lang, lookup);
    const { client } = lookup;
    const redirect = redirectUriOf(client, req.query);
    if (!redirect.ok) return refuse(req, res, lang, 'redirect_uri', 'invalid_request', redirect.detail);
    // Only now may a fetched document be cached: one whose redirect URI did not match stores nothing.
    await lookup.keep();

    const sandbox = req.ctx.sandbox;
    const issuer = issuerFor(deps.publicBaseUrl, sandbox);
    const checked: RequestCheck = checkAuthorizationRequest(client, req.query, deps.publicBaseUrl);
    if (!checked.ok) {
      const { error, description, state } = checked;
      if (!client.verified) return refuse(req, res, lang, 'invalid_request', error, description);
      return res.redirect(303, redirectWith(redirect.redirectUri, { error, error_description: description, state, iss: issuer }));
    }

    const request: AuthorizationRequest = {
      client_id: client.client_id,
      client_name: client.client_name,
      ...(client.host ? { client_host: client.host } : {}),
      client_verified: client.verified,
      redirect_uri: redirect.redirectUri,
      redirect_uri_sent: redirect.sent,
      ...(checked.state !== undefined ? { state: checked.state } : {}),
      code_challenge: checked.codeChallenge,
      scopes: checked.scopes,
      resource: checked.resource,
      sandbox,
    };
    const id = randomBase62(32);
    const binding = browser.ensure(req, res);
    await deps.store.saveInteraction(id, { request, browser: digest(binding), csrf: randomBase62(32), step: 'email' });
    res.setHeader('Cache-Control', 'no-store');
    res.redirect(303, consentUrl(issuer, id, req.query.lang === lang ? lang : undefined));
  };
}

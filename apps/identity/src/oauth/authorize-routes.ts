// GET /oauth/authorize and the consent page it leads to. The request is
// checked in the order RFC 6749 §4.1.2.1 asks: an unknown client or a
// redirect URI that is not registered ends on an error page here, never in a
// redirect. Every later problem goes back to the client with `error`,
// `state` and `iss` only for a verified client: anyone can register a client
// whose redirect URI is their own page, and an error answered with a redirect
// there would make this host an open redirector (RFC 9700 §4.11.2), so every
// other client's error ends on our error page too. A person's denial
// (`access_denied`) always goes back.
//
// The page is bound to the browser that opened it (a
// cookie) and every form carries a CSRF token.
import { randomBytes, randomInt, timingSafeEqual } from 'node:crypto';
import { LIMITS, pageLanguageOf, type Scope } from '@msa/contracts';
import { appError, mailboxKey, methodNotAllowed, type Logger } from '@msa/service-kit';
import { secondsUntilUtcMidnight, type ConsumeResult, type DailyQuota, type WindowLimiter } from '@msa/service-kit/limits';
import { Router, type Request, type Response } from 'express';
import { z } from 'zod';
import { issuerFor } from '../domain/access-token.js';
import { audienceFor } from '../domain/resource-indicator.js';
import { narrowScopes } from '../domain/scopes.js';
import type { ClientDirectory } from './clients.js';
import type { ConsentMailer } from './consent-mail.js';
import { approvalTarget } from './approval-target.js';
import { renderConsentPage, renderErrorPage, renderTooManyPage, type ConsentView, type Lang, type PageProblem, type TooMany } from './consent-page.js';
import { isS256Challenge } from './pkce.js';
import { digest, type Approval, type AuthorizationRequest, type Interaction, type OAuthStore } from './oauth-store.js';
import { formActionSource, matchRedirectUri } from './redirect-uris.js';
import { randomBase62 } from '../domain/credentials.js';
import { anonymousSandboxId } from './person.js';

export interface AuthorizeDeps {
  store: OAuthStore;
  clients: ClientDirectory;
  mailer: ConsentMailer;
  /** Code e-mails per mailbox an hour and per UTC day. */
  mailsPerAddress: WindowLimiter;
  mailsPerAddressPerDay: DailyQuota;
  /** Code e-mails a client address asks for an hour. */
  mailsPerIp: WindowLimiter;
  /** Distinct people (mailboxes) a client address asks codes for per UTC day. */
  peoplePerIp: DailyQuota;
  /** Wrong codes per mailbox and UTC day before confirming it is locked. */
  wrongCodesPerAddressPerDay: number;
  /** The key per-address limits count a client address under (IPv6 by prefix). */
  addressKey: (ip: string) => string;
  publicBaseUrl: string;
  logger: Logger;
}

const COOKIE_SECURE = '__Host-msa_consent';
const COOKIE_PLAIN = 'msa_consent';
const INTERACTION_ID = /^[0-9A-Za-z]{32}$/;
const ConsentEmail = z.email().max(254);

function cookieName(publicBaseUrl: string): string {
  return publicBaseUrl.startsWith('https:') ? COOKIE_SECURE : COOKIE_PLAIN;
}

function readCookie(req: Request, name: string): string | undefined {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

function sameSecret(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** Headers of every page here: never framed, never cached, no referrer carrying a code onwards. */
function pageHeaders(res: Response, formTarget?: string) {
  const formAction = ["'self'", ...(formTarget ? [formActionSource(formTarget)] : [])].join(' ');
  res.setHeader(
    'Content-Security-Policy',
    `default-src 'none'; style-src 'unsafe-inline'; img-src 'self' data:; form-action ${formAction}; frame-ancestors 'none'; base-uri 'none'`,
  );
  res.setHeader('X-Frame-Options', 'DENY');
  res.setHeader('Cache-Control', 'no-store');
  res.setHeader('Referrer-Policy', 'no-referrer');
}

function sendPage(res: Response, status: number, html: string, formTarget?: string) {
  pageHeaders(res, formTarget);
  res.status(status).type('text/html; charset=utf-8').send(html);
}

function errorPage(res: Response, lang: Lang, status: number, problem: PageProblem, detail?: string) {
  sendPage(res, status, renderErrorPage(lang, problem, detail));
}

/** Error codes a caller of the authorization endpoint that asks for JSON gets in the envelope. */
type AuthorizeErrorCode = 'invalid_request' | 'unsupported_response_type' | 'invalid_scope' | 'invalid_target' | 'rate_limited';

/**
 * An authorization request that ends here: our error page for a browser, the
 * error envelope for a caller that asks for JSON (`Accept: application/json`).
 */
function refuse(req: Request, res: Response, lang: Lang, status: number, problem: PageProblem, code: AuthorizeErrorCode, detail: string) {
  if (req.accepts(['html', 'json']) === 'json') throw appError(code, detail);
  errorPage(res, lang, status, problem, detail);
}

/** The client's redirect URI with the response parameters added to its own query. */
export function redirectWith(redirectUri: string, params: Record<string, string | undefined>): string {
  const url = new URL(redirectUri);
  for (const [k, v] of Object.entries(params)) if (v !== undefined) url.searchParams.append(k, v);
  return url.href;
}

function first(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

export function authorizeRoutes(deps: AuthorizeDeps): Router {
  const router = Router();
  const env = { publicBaseUrl: deps.publicBaseUrl };
  const cookie = cookieName(deps.publicBaseUrl);
  const secureCookie = cookie === COOKIE_SECURE;

  function consentUrl(sandbox: boolean, id: string, lang?: Lang): string {
    return `${issuerFor(deps.publicBaseUrl, sandbox)}/oauth/consent/${id}${lang ? `?lang=${lang}` : ''}`;
  }

  /** The browser's binding cookie, set when it has none yet. */
  function browserBinding(req: Request, res: Response): string {
    const existing = readCookie(req, cookie);
    if (existing && /^[0-9A-Za-z]{32,64}$/.test(existing)) return existing;
    const value = randomBase62(40);
    res.cookie(cookie, value, {
      httpOnly: true,
      secure: secureCookie,
      sameSite: 'lax',
      path: '/',
      maxAge: LIMITS.consentInteractionSeconds * 1000,
    });
    return value;
  }

  router
    .route('/oauth/authorize')
    .get(async (req, res) => {
      const lang = pageLanguageOf(req.query.lang ?? req.query.ui_locales, req.get('accept-language'));
      const q = req.query;
      const lookup = await deps.clients.lookup(first(q.client_id), deps.addressKey(req.ctx.ip));
      if (!lookup.ok) {
        if (lookup.problem !== 'busy') return refuse(req, res, lang, 400, lookup.problem, 'invalid_request', lookup.detail ?? 'The client is not known.');
        // Refused before any fetch: a cap on document fetches, answered at once.
        res.setHeader('Retry-After', String(lookup.retryAfterSeconds));
        if (req.accepts(['html', 'json']) === 'json') {
          throw appError('rate_limited', lookup.detail, { headers: { 'Retry-After': String(lookup.retryAfterSeconds) } });
        }
        return errorPage(res, lang, 429, 'busy', lookup.detail);
      }
      const client = lookup.client;

      const requestedRedirect = first(q.redirect_uri);
      let redirectUri: string;
      if (requestedRedirect === undefined) {
        // OAuth 2.1 §4.1.1: optional only when the client registered exactly one.
        if (client.redirect_uris.length !== 1) return refuse(req, res, lang, 400, 'redirect_uri', 'invalid_request', 'redirect_uri is missing.');
        redirectUri = client.redirect_uris[0]!;
      } else if (matchRedirectUri(requestedRedirect, client.redirect_uris)) {
        redirectUri = requestedRedirect;
      } else {
        return refuse(req, res, lang, 400, 'redirect_uri', 'invalid_request', 'redirect_uri is not registered for this client.');
      }
      // Only now may a fetched document be cached: one whose redirect URI did not match stores nothing.
      await lookup.keep();

      const sandbox = req.ctx.sandbox;
      const issuer = issuerFor(deps.publicBaseUrl, sandbox);
      const state = first(q.state);
      const fail = (error: Exclude<AuthorizeErrorCode, 'rate_limited'>, description: string) =>
        client.verified
          ? res.redirect(303, redirectWith(redirectUri, { error, error_description: description, state, iss: issuer }))
          : refuse(req, res, lang, 400, 'invalid_request', error, description);

      if (first(q.response_type) !== 'code') return fail('unsupported_response_type', 'response_type must be code.');
      const challenge = first(q.code_challenge);
      if (!challenge) return fail('invalid_request', 'PKCE is required: send code_challenge with code_challenge_method=S256.');
      if (first(q.code_challenge_method) !== 'S256') return fail('invalid_request', 'code_challenge_method must be S256; plain is not accepted.');
      if (!isS256Challenge(challenge)) return fail('invalid_request', 'code_challenge must be the base64url SHA-256 of the verifier (43 characters).');
      const scope = narrowScopes(client.scopes, first(q.scope));
      if (!scope.ok) return fail('invalid_scope', `scope must be a subset of: ${client.scopes.join(' ')}.`);
      const target = audienceFor(deps.publicBaseUrl, q.resource as string | string[] | undefined);
      if (!target.ok) return fail('invalid_target', target.message);
      if (state !== undefined && state.length > 2048) return fail('invalid_request', 'state is longer than 2048 characters.');

      const request: AuthorizationRequest = {
        client_id: client.client_id,
        client_name: client.client_name,
        ...(client.host ? { client_host: client.host } : {}),
        client_verified: client.verified,
        redirect_uri: redirectUri,
        redirect_uri_sent: requestedRedirect !== undefined,
        ...(state !== undefined ? { state } : {}),
        code_challenge: challenge,
        scopes: scope.scopes,
        resource: target.audience,
        sandbox,
      };
      const id = randomBase62(32);
      const browser = browserBinding(req, res);
      await deps.store.saveInteraction(id, { request, browser: digest(browser), csrf: randomBase62(32), step: 'email' });
      res.setHeader('Cache-Control', 'no-store');
      res.redirect(303, consentUrl(sandbox, id, req.query.lang === lang ? lang : undefined));
    })
    .all(methodNotAllowed(env, ['GET']));

  /** The interaction of the path, if it exists and belongs to this browser. */
  async function interactionOf(req: Request, res: Response, lang: Lang): Promise<{ id: string; interaction: Interaction } | null> {
    const id = String(req.params.interaction ?? '');
    const interaction = INTERACTION_ID.test(id) ? await deps.store.findInteraction(id) : null;
    if (!interaction) {
      errorPage(res, lang, 404, 'expired');
      return null;
    }
    const browser = readCookie(req, cookie);
    if (!browser || !sameSecret(digest(browser), interaction.browser)) {
      errorPage(res, lang, 403, 'csrf', 'This page was opened in another browser, or its cookie is missing.');
      return null;
    }
    return { id, interaction };
  }

  function view(id: string, interaction: Interaction, lang: Lang, extra: Partial<ConsentView> = {}): ConsentView {
    const r = interaction.request;
    return {
      lang,
      action: consentUrl(r.sandbox, id),
      privacyHref: `${issuerFor(deps.publicBaseUrl, r.sandbox)}/privacy?lang=${lang}`,
      switchHref: consentUrl(r.sandbox, id, lang === 'de' ? 'en' : 'de'),
      csrf: interaction.csrf,
      clientName: r.client_name,
      clientHost: r.client_host,
      selfDeclared: !r.client_verified,
      approvalTarget: approvalTarget(r.redirect_uri),
      scopes: r.scopes as Scope[],
      sandboxOnly: r.sandbox,
      step: interaction.step,
      email: interaction.email,
      ...extra,
    };
  }

  function show(res: Response, status: number, id: string, interaction: Interaction, lang: Lang, extra: Partial<ConsentView> = {}) {
    sendPage(res, status, renderConsentPage(view(id, interaction, lang, extra)), interaction.request.redirect_uri);
  }

  function finish(res: Response, interaction: Interaction, params: Record<string, string | undefined>) {
    const r = interaction.request;
    pageHeaders(res, r.redirect_uri);
    res.redirect(303, redirectWith(r.redirect_uri, { ...params, state: r.state, iss: issuerFor(deps.publicBaseUrl, r.sandbox) }));
  }

  router
    .route('/oauth/consent/:interaction')
    .get(async (req, res) => {
      const lang = pageLanguageOf(req.query.lang, req.get('accept-language'));
      const found = await interactionOf(req, res, lang);
      if (!found) return;
      show(res, 200, found.id, found.interaction, lang);
    })
    .post(async (req, res) => {
      const body = (req.body ?? {}) as Record<string, unknown>;
      const lang = pageLanguageOf(body.lang, req.get('accept-language'));
      const found = await interactionOf(req, res, lang);
      if (!found) return;
      const { id, interaction } = found;
      const csrf = first(body.csrf);
      if (!csrf || !sameSecret(csrf, interaction.csrf)) return errorPage(res, lang, 403, 'csrf');

      const decision = first(body.decision);
      if (decision === 'deny') {
        if (!(await deps.store.claimInteraction(id))) return errorPage(res, lang, 404, 'expired');
        return finish(res, interaction, { error: 'access_denied', error_description: 'The person denied access.' });
      }
      if (decision === 'restart') {
        // The code's tries stay counted under its digest: a restart gives a guess in flight nothing back.
        const reset: Interaction = { request: interaction.request, browser: interaction.browser, csrf: interaction.csrf, step: 'email' };
        await deps.store.updateInteraction(id, reset);
        return res.redirect(303, consentUrl(interaction.request.sandbox, id, lang));
      }
      // The sandbox without an e-mail: a form of its own with no address and no code in it.
      if (decision === 'approve' && first(body.mode) === 'sandbox' && body.email === undefined && body.code === undefined) {
        return approveSandbox(req, res, id, interaction, lang);
      }
      if (interaction.step === 'email') {
        // Live, or the sandbox under one's own address, needs the confirmed address first.
        if (decision === 'approve') return show(res, 422, id, interaction, lang, { error: 'confirm_first' });
        return sendCode(req, res, id, interaction, lang, first(body.email));
      }
      if (decision === 'approve') return approve(req, res, id, interaction, lang, first(body.code), first(body.mode));
      return show(res, 200, id, interaction, lang);
    })
    .all(methodNotAllowed(env, ['GET', 'POST']));

  function tooMany(res: Response, interaction: Interaction, id: string, lang: Lang, reason: TooMany, retryAfterSeconds: number) {
    const retryAfter = Math.max(1, Math.ceil(retryAfterSeconds));
    res.setHeader('Retry-After', String(retryAfter));
    sendPage(res, 429, renderTooManyPage(lang, reason, retryAfter, consentUrl(interaction.request.sandbox, id, lang === 'de' ? 'en' : 'de')));
  }

  /**
   * Sends a code only when every count allows it, checked in this order so
   * that a refusal spends nothing it need not: the sender's own hourly
   * allowance first (a sender past it spends no one else's), then the
   * mailbox's lock after wrong codes, the new people of the sender's address
   * today, and last the mailbox's codes this hour and today. Every count is
   * of the mailbox (`mailboxKey`), so `+tag` spellings share one; the e-mail
   * goes to the address as typed. The page says the same whether or not the
   * address is known anywhere.
   */
  async function sendCode(req: Request, res: Response, id: string, interaction: Interaction, lang: Lang, email: string | undefined) {
    const parsed = ConsentEmail.safeParse(email?.trim());
    if (!parsed.success) return show(res, 422, id, interaction, lang, { error: 'invalid_email', email });
    const address = parsed.data;
    const mailbox = digest(mailboxKey(address));
    const sender = deps.addressKey(req.ctx.ip);
    const refused = (reason: TooMany, result: Pick<ConsumeResult, 'state'>) => tooMany(res, interaction, id, lang, reason, result.state.resetSeconds);

    const byIp = await deps.mailsPerIp.consume(sender);
    if (!byIp.allowed) return refused('codes', byIp);
    if ((await deps.store.wrongCodes(mailbox)) >= deps.wrongCodesPerAddressPerDay) {
      return tooMany(res, interaction, id, lang, 'locked', secondsUntilUtcMidnight());
    }
    // A person already counted today from this address goes on; the unit is the mailbox.
    const person = await deps.peoplePerIp.reserve(sender, new Date(), mailbox.slice(0, 32));
    if (!person.allowed) return refused('people', person);
    const byAddress = await deps.mailsPerAddress.consume(mailbox);
    if (!byAddress.allowed) return refused('codes', byAddress);
    const today = await deps.mailsPerAddressPerDay.reserve(mailbox);
    if (!today.allowed) return refused('codes_today', today);

    const code = String(randomInt(0, 1_000_000)).padStart(6, '0');
    const next: Interaction = {
      ...interaction,
      step: 'code',
      email: address,
      code_digest: digest(`${id}:${code}`),
      code_expires_at: Date.now() + LIMITS.consentCodeLifetimeSeconds * 1000,
    };
    await deps.store.updateInteraction(id, next);
    const r = interaction.request;
    await deps.mailer.send({
      to: address,
      code,
      lang,
      clientName: r.client_name,
      clientHost: r.client_host,
      clientNameSelfDeclared: !r.client_verified,
      approvalTarget: approvalTarget(r.redirect_uri),
      trace: { request_id: req.ctx.request_id },
    });
    req.log.info({ interaction: id.slice(0, 6) }, 'consent code sent');
    res.redirect(303, consentUrl(interaction.request.sandbox, id, lang));
  }

  async function approve(req: Request, res: Response, id: string, interaction: Interaction, lang: Lang, code: string | undefined, mode: string | undefined) {
    const chosen = interaction.request.sandbox ? 'sandbox' : mode;
    if (chosen !== 'live' && chosen !== 'sandbox') return show(res, 422, id, interaction, lang, { error: 'choose_mode' });
    const { code_digest: codeDigest, code_expires_at: expiresAt, email } = interaction;
    if (!codeDigest || !expiresAt || !email || Date.now() > expiresAt) return show(res, 422, id, interaction, lang, { error: 'code_expired' });
    // Every try counts, atomically, before the code is compared: parallel guesses cannot share one count.
    const tries = await deps.store.countCodeTry(codeDigest, expiresAt);
    if (tries > LIMITS.consentCodeAttempts) return show(res, 422, id, interaction, lang, { error: 'code_expired' });
    // The mailbox's count of the day too, across every page and code; a right code is given back below.
    const mailbox = digest(mailboxKey(email));
    const wrongToday = await deps.store.countMailboxTry(mailbox);
    if (wrongToday > deps.wrongCodesPerAddressPerDay) return tooMany(res, interaction, id, lang, 'locked', secondsUntilUtcMidnight());
    const presented = /^\d{6}$/.test(code?.trim() ?? '') ? digest(`${id}:${code!.trim()}`) : '';
    if (!sameSecret(presented.padEnd(64, '0'), codeDigest)) {
      if (wrongToday >= deps.wrongCodesPerAddressPerDay) return tooMany(res, interaction, id, lang, 'locked', secondsUntilUtcMidnight());
      const left = LIMITS.consentCodeAttempts - tries;
      return show(res, 422, id, interaction, lang, left > 0 ? { error: 'wrong_code', attemptsLeft: left } : { error: 'code_expired' });
    }
    await deps.store.forgiveTry(mailbox);
    // One approval per page, even when the form is sent twice at once.
    if (!(await deps.store.claimInteraction(id))) return errorPage(res, lang, 404, 'expired');
    await grantCode(req, res, interaction, { email, mode: chosen });
  }

  /**
   * The sandbox without an e-mail code, the way in for directory reviewers:
   * a principal of its own, tied to no address, with the sandbox's limits
   * (its requests count on the sandbox quota per principal and per client
   * address, as an anonymous sandbox call does). Each is a new principal, so
   * it counts as a new person of the caller's address today, as a mailbox
   * does: an address gets no more of them than people.
   */
  async function approveSandbox(req: Request, res: Response, id: string, interaction: Interaction, lang: Lang) {
    const principal = anonymousSandboxId();
    const person = await deps.peoplePerIp.reserve(deps.addressKey(req.ctx.ip), new Date(), `anon:${principal.slice(-24)}`);
    if (!person.allowed) return tooMany(res, interaction, id, lang, 'people', person.state.resetSeconds);
    if (!(await deps.store.claimInteraction(id))) {
      await person.refund();
      return errorPage(res, lang, 404, 'expired');
    }
    await grantCode(req, res, interaction, { mode: 'sandbox', principal });
  }

  /** Stores the authorization code of an approval and sends the browser back to the client with it. */
  async function grantCode(req: Request, res: Response, interaction: Interaction, approval: Approval) {
    const authorizationCode = randomBytes(32).toString('base64url');
    await deps.store.saveCode(authorizationCode, { request: interaction.request, approval, grant_id: `g${randomBase62(24)}` });
    req.log.info(
      { clientId: interaction.request.client_id, mode: approval.mode, sandbox: interaction.request.sandbox, confirmed: approval.email !== undefined },
      'authorization approved',
    );
    finish(res, interaction, { code: authorizationCode });
  }

  return router;
}

// GET and POST /oauth/consent/:interaction: the page between the
// authorization request and the redirect back. It belongs to the browser that
// opened it (a cookie) and every form carries a CSRF token. A person's denial
// (`access_denied`) always goes back to the client.
import { pageLanguageOf, type Scope } from '@msa/contracts';
import type { Request, RequestHandler, Response } from 'express';
import type { OAuthDeps } from '../oauth-deps.js';
import { renderConsentPage, type ConsentView, type Lang } from '../pages/consent-page.js';
import { consentUrl } from '../paths.js';
import { approvalTarget } from '../rules/approval-target.js';
import { first, redirectWith } from '../rules/authorization-request.js';
import { digest, sameSecret } from '../rules/digest.js';
import type { Interaction } from '../store/oauth-records.js';
import { issuerFor } from '../tokens/access-token.js';
import { approveConsent, approveSandboxWithoutEmail, type ApproveConsentResult } from '../use-cases/approve-consent.js';
import type { TooManyResult } from '../use-cases/consent-deps.js';
import { sendConsentCode } from '../use-cases/send-consent-code.js';
import type { BrowserBinding } from './browser-binding.js';
import { errorPage, sendPage, setPageHeaders, tooManyPage } from './page-response.js';

const INTERACTION_ID = /^[0-9A-Za-z]{32}$/;

interface Page {
  deps: OAuthDeps;
  req: Request;
  res: Response;
  id: string;
  interaction: Interaction;
  lang: Lang;
}

const otherLang = (lang: Lang): Lang => (lang === 'de' ? 'en' : 'de');
const issuerOf = ({ deps, interaction }: Page) => issuerFor(deps.publicBaseUrl, interaction.request.sandbox);

/** The interaction of the path, if it exists and belongs to this browser; otherwise the error page is sent. */
async function open(deps: OAuthDeps, browser: BrowserBinding, req: Request, res: Response, lang: Lang): Promise<Page | null> {
  const id = String(req.params.interaction ?? '');
  const interaction = INTERACTION_ID.test(id) ? await deps.store.findInteraction(id) : null;
  if (!interaction) {
    errorPage(res, lang, 404, 'expired');
    return null;
  }
  const binding = browser.read(req);
  if (!binding || !sameSecret(digest(binding), interaction.browser)) {
    errorPage(res, lang, 403, 'csrf', 'This page was opened in another browser, or its cookie is missing.');
    return null;
  }
  return { deps, req, res, id, interaction, lang };
}

function show(page: Page, status: number, extra: Partial<ConsentView> = {}): void {
  const { id, interaction, lang } = page;
  const r = interaction.request;
  const issuer = issuerOf(page);
  const view: ConsentView = {
    lang,
    action: consentUrl(issuer, id),
    privacyHref: `${issuer}/privacy?lang=${lang}`,
    switchHref: consentUrl(issuer, id, otherLang(lang)),
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
  sendPage(page.res, status, renderConsentPage(view), r.redirect_uri);
}

/** Back to the client with the response parameters, `state` and `iss`. */
function finish(page: Page, params: Record<string, string | undefined>): void {
  const r = page.interaction.request;
  setPageHeaders(page.res, r.redirect_uri);
  page.res.redirect(303, redirectWith(r.redirect_uri, { ...params, state: r.state, iss: issuerOf(page) }));
}

function tooMany(page: Page, result: TooManyResult): void {
  tooManyPage(page.res, page.lang, result.reason, result.retryAfterSeconds, consentUrl(issuerOf(page), page.id, otherLang(page.lang)));
}

function answerApproval(page: Page, result: ApproveConsentResult): void {
  if (result.kind === 'retry') return show(page, 422, { error: result.error, ...(result.attemptsLeft ? { attemptsLeft: result.attemptsLeft } : {}) });
  if (result.kind === 'too_many') return tooMany(page, result);
  if (result.kind === 'expired') return errorPage(page.res, page.lang, 404, 'expired');
  const r = page.interaction.request;
  page.req.log.info({ clientId: r.client_id, mode: result.approval.mode, sandbox: r.sandbox, confirmed: result.approval.email !== undefined }, 'authorization approved');
  finish(page, { code: result.code });
}

async function sendCode(page: Page, email: string | undefined): Promise<void> {
  const { deps, req, id, interaction, lang } = page;
  const sent = await sendConsentCode(deps, { id, interaction, email, lang, sender: deps.addressKey(req.ctx.ip), requestId: req.ctx.request_id });
  if (sent.kind === 'invalid_email') return show(page, 422, { error: 'invalid_email', email });
  if (sent.kind === 'too_many') return tooMany(page, sent);
  req.log.info({ interaction: id.slice(0, 6) }, 'consent code sent');
  page.res.redirect(303, consentUrl(issuerOf(page), id, lang));
}

/** What the form asked for: deny, start again, the sandbox without e-mail, a code, or approval with the code. */
async function decide(page: Page, body: Record<string, unknown>): Promise<void> {
  const { deps, id, interaction } = page;
  const decision = first(body.decision);
  if (decision === 'deny') {
    if (!(await deps.store.claimInteraction(id))) return errorPage(page.res, page.lang, 404, 'expired');
    return finish(page, { error: 'access_denied', error_description: 'The person denied access.' });
  }
  if (decision === 'restart') {
    // The code's tries stay counted under its digest: a restart gives a guess in flight nothing back.
    await deps.store.updateInteraction(id, { request: interaction.request, browser: interaction.browser, csrf: interaction.csrf, step: 'email' });
    return page.res.redirect(303, consentUrl(issuerOf(page), id, page.lang));
  }
  // The sandbox without an e-mail: a form of its own with no address and no code in it.
  if (decision === 'approve' && first(body.mode) === 'sandbox' && body.email === undefined && body.code === undefined) {
    return answerApproval(page, await approveSandboxWithoutEmail(deps, { id, interaction, sender: deps.addressKey(page.req.ctx.ip) }));
  }
  if (interaction.step === 'email') {
    // Live, or the sandbox under one's own address, needs the confirmed address first.
    if (decision === 'approve') return show(page, 422, { error: 'confirm_first' });
    return sendCode(page, first(body.email));
  }
  if (decision === 'approve') return answerApproval(page, await approveConsent(deps, { id, interaction, code: first(body.code), mode: first(body.mode) }));
  show(page, 200);
}

export function consentController(deps: OAuthDeps, browser: BrowserBinding): { show: RequestHandler; answer: RequestHandler } {
  return {
    show: async (req, res) => {
      const page = await open(deps, browser, req, res, pageLanguageOf(req.query.lang, req.get('accept-language')));
      if (page) show(page, 200);
    },
    answer: async (req, res) => {
      const body = (req.body ?? {}) as Record<string, unknown>;
      const page = await open(deps, browser, req, res, pageLanguageOf(body.lang, req.get('accept-language')));
      if (!page) return;
      const csrf = first(body.csrf);
      if (!csrf || !sameSecret(csrf, page.interaction.csrf)) return errorPage(res, page.lang, 403, 'csrf');
      await decide(page, body);
    },
  };
}

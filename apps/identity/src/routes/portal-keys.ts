// The developer portal's form (`POST /developers/keys`, route
// createKeyFromPortal): the credentials of `POST /v1/keys` for people without
// curl. The same schema, the same per-address day quota and the same
// createCredentials; what differs is the answer. A browser shows whatever
// comes back, so people get pages: the key shown once, or the problem with the
// form filled in again. A caller that prefers application/json still gets the
// API's JSON, the credentials or the error envelope.
import { ApiKeyRequest, LIMITS, type FieldProblem } from '@msa/contracts';
import { escapeHtml, renderKeyForm, renderPageShell } from '@msa/docs/page-kit';
import { AppError, appError, isRedisUnavailable, methodNotAllowed, serviceUnavailableError, toFieldProblems } from '@msa/service-kit';
import { withReservation } from '@msa/service-kit/limits';
import { Router, type Request } from 'express';
import { createCredentials, type CreatedCredentials } from '../domain/create-credentials.js';
import type { RouteDeps } from './context.js';
import { apiKeyOf } from './keys.js';

/** What the form sent, as typed, so a page with a problem can show it again. */
interface FormValues {
  name: string;
  email: string;
  mode: string;
}

/** Where the pages link: the portal of the environment the form was sent on. */
interface PageUrls {
  base: string;
  production: string;
  portal: string;
  action: string;
}

function urlsFor(publicBaseUrl: string, sandbox: boolean): PageUrls {
  const production = publicBaseUrl.replace(/\/+$/, '');
  const base = sandbox ? `${production}/sandbox` : production;
  return { base, production, portal: `${base}/developers`, action: `${base}/developers/keys` };
}

const text = (value: unknown) => (typeof value === 'string' ? value : '');

/** The form's three fields; anything else a browser or a person adds is not part of the request. */
function formFields(body: unknown): Record<string, unknown> {
  const raw = (body ?? {}) as Record<string, unknown>;
  const fields: Record<string, unknown> = {};
  for (const key of ['name', 'email', 'mode'] as const) if (raw[key] !== undefined) fields[key] = raw[key];
  return fields;
}

/** Field messages a person can act on; the schema's own are written for developers. */
const FIELD_MESSAGES: Record<string, string> = {
  name: `Enter a name of ${LIMITS.keyNameMin} to ${LIMITS.keyNameMax} characters, such as the name of your application.`,
  email: 'Enter a valid e-mail address, such as dev@example.org.',
  mode: 'Choose sandbox or live.',
};

function parseKeyForm(fields: Record<string, unknown>, sandbox: boolean, urls: PageUrls): ApiKeyRequest {
  const parsed = ApiKeyRequest.safeParse(fields);
  if (!parsed.success) {
    const problems = toFieldProblems(parsed.error).map((p) => ({ field: p.field, message: FIELD_MESSAGES[p.field] ?? p.message }));
    throw appError('validation_failed', 'Some fields need another look.', { fields: problems });
  }
  if (sandbox && parsed.data.mode === 'live') {
    throw appError('invalid_request', 'Live keys cannot be created on the sandbox.', {
      fields: [{ field: 'mode', message: 'Live keys are made on the production portal; here, choose sandbox.' }],
      hint: `Create live keys with the form at ${urls.production}/developers#create-a-key.`,
    });
  }
  return parsed.data;
}

/** JSON only when it is preferred to HTML: a browser's Accept, `*\/*` or none gets the page. */
const prefersJson = (req: Request) => req.accepts(['text/html', 'application/json']) === 'application/json';

// The key pages' own rules, for a single column: the secrets break anywhere and
// code scrolls inside its box, so nothing scrolls sideways at 360 px. Colours,
// type and the form's rules come from the page kit.
const CSS = `
main { max-width: 40rem; margin: 0 auto; padding: 2rem 1rem 3rem; overflow-wrap: break-word; }
h1 { font-size: 1.6rem; line-height: 1.25; margin: 0 0 1rem; }
h2 { font-size: 1.15rem; margin: 2rem 0 0.5rem; }
code { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 0.9em; }
pre { background: var(--panel); border: 1px solid var(--line); border-radius: 6px; padding: 0.8rem 1rem; overflow-x: auto; max-width: 100%; font-size: 0.85rem; }
.note { background: var(--note); border: 1px solid var(--note-line); border-radius: 8px; padding: 0.8rem 1rem; margin: 0 0 1.25rem; }
.note p, .problem p { margin: 0.25rem 0; }
.problem { border: 1px solid var(--bad); border-radius: 8px; padding: 0.8rem 1rem; margin: 0 0 1.25rem; }
.problem strong { color: var(--bad); }
.problem ul { margin: 0.4rem 0; padding-left: 1.25rem; }
dl.secrets { margin: 0 0 1rem; }
dl.secrets dt { font-weight: 600; margin-top: 0.9rem; }
dl.secrets dd { margin: 0.3rem 0 0; }
dl.secrets dd code { display: block; padding: 0.55rem 0.7rem; background: var(--panel); border: 1px solid var(--line); border-radius: 6px; overflow-wrap: anywhere; word-break: break-all; user-select: all; }
.muted { color: var(--muted); font-size: 0.92rem; }
`;

/** A key page: one person's answer, so no search engine keeps it. `keyForm` when it carries the form again. */
function page(title: string, body: string, keyForm = false): string {
  const main = `<main>\n<h1>${escapeHtml(title)}</h1>\n${body}\n</main>`;
  return renderPageShell({ lang: 'en', title, body: main, styles: CSS, productInTitle: true, noindex: true, keyForm });
}

function createdPage(created: CreatedCredentials, urls: PageUrls): string {
  const { record } = created;
  const secret = (label: string, field: string, value: string) =>
    `<dt>${label} (<code>${field}</code>)</dt>\n<dd><code>${escapeHtml(value)}</code></dd>`;
  const modeNote =
    record.mode === 'live'
      ? `<p>This is a <strong>live</strong> key: a shop request sent with it on ${escapeHtml(urls.production)} reaches the operator team. Try your flow on ${escapeHtml(`${urls.production}/sandbox`)} first; there even a live key stays on the sandbox.</p>`
      : `<p>This is a <strong>sandbox</strong> key: every call with it is a sandbox call, so shop requests are stored and never sent.</p>`;
  const portal = escapeHtml(urls.portal);
  return page(
    `Your new ${record.mode} key`,
    [
      '<div class="note" role="status">',
      '<p><strong>Copy it now: it is shown only once.</strong></p>',
      '<p>We keep only a hash of the key and of the client secret, so nobody can show them to you again. If you lose them, create a new key.</p>',
      '</div>',
      '<dl class="secrets">',
      secret('API key', 'api_key', created.apiKey),
      secret('Client id', 'client_id', created.clientId),
      secret('Client secret', 'client_secret', created.clientSecret),
      '</dl>',
      `<p class="muted">Name: ${escapeHtml(record.name)} · e-mail: ${escapeHtml(record.email)} · scopes: ${record.scopes.map((s) => `<code>${s}</code>`).join(', ')} · created ${escapeHtml(record.created_at)}</p>`,
      modeNote,
      '<h2>Try it</h2>',
      `<pre><code>curl -H "Authorization: Bearer ${escapeHtml(created.apiKey)}" ${escapeHtml(urls.base)}/v1/me</code></pre>`,
      `<p>Send the key as <code>Authorization: Bearer …</code> or <code>X-API-Key</code>; exchange the client id and secret for an access token at <code>POST ${escapeHtml(urls.base)}/oauth/token</code>. Hosts that accept static headers take the key too: <a href="${portal}#connect-from-an-agent-host">connect from an agent host</a>.</p>`,
      `<p><a href="${portal}">Back to the developer portal</a></p>`,
    ].join('\n'),
  );
}

/** The form again, filled in as it was sent, each problem next to its field. */
function formAgain(values: FormValues, problems: FieldProblem[], urls: PageUrls, sandbox: boolean): string {
  return renderKeyForm({ action: urls.action, sandbox, liveFormUrl: `${urls.production}/developers#create-a-key`, values, problems });
}

/** What to do next, said for a person: the API's hints speak of headers. */
function nextStep(problem: AppError): string | undefined {
  if (problem.code === 'rate_limited') {
    const hours = Math.max(1, Math.round(Number(problem.extra.headers?.['Retry-After'] ?? 0) / 3600));
    return `One address can create ${LIMITS.keyCreationsPerIpPerDay} keys a day. Create the next one after midnight UTC (in about ${hours} ${hours === 1 ? 'hour' : 'hours'}), and until then keep using a key you already have.`;
  }
  if (problem.code === 'service_unavailable') return 'Nothing was created. Send the form again in a few seconds.';
  return problem.extra.hint;
}

function problemPage(problem: AppError, values: FormValues, urls: PageUrls, sandbox: boolean): string {
  const fields = problem.extra.fields ?? [];
  const list = fields.length ? `<ul>${fields.map((f) => `<li>${escapeHtml(f.message)}</li>`).join('')}</ul>` : '';
  const next = nextStep(problem);
  const hint = next ? `<p>${escapeHtml(next)}</p>` : '';
  return page(
    'The key was not created',
    [
      `<div class="problem" role="alert"><p><strong>${escapeHtml(problem.message)}</strong></p>${list}${hint}</div>`,
      formAgain(values, fields, urls, sandbox),
      `<p class="muted"><a href="${escapeHtml(urls.portal)}">Back to the developer portal</a></p>`,
    ].join('\n'),
    true,
  );
}

export function portalKeyRoutes(deps: RouteDeps): Router {
  const router = Router();
  const env = { publicBaseUrl: deps.publicBaseUrl };

  router
    .route('/developers/keys')
    .post(async (req, res) => {
      const json = prefersJson(req);
      const sandbox = req.ctx.sandbox;
      const urls = urlsFor(deps.publicBaseUrl, sandbox);
      const fields = formFields(req.body);
      // Secrets on success, an e-mail address on a problem: neither belongs in a cache.
      res.setHeader('Cache-Control', 'no-store');
      try {
        const body = parseKeyForm(fields, sandbox, urls);
        // Validated first, so a typo never uses up one of the address's creations.
        const reservation = await deps.quota.reserve(req, res);
        const created = await withReservation(reservation, () =>
          createCredentials(deps.store, { name: body.name, email: body.email, scopes: body.scopes, mode: body.mode, origin: 'api_key' }),
        );
        deps.counters.credentialsCreated.inc({ origin: 'api_key', mode: created.record.mode });
        req.log.info({ clientId: created.clientId, mode: created.record.mode }, 'api key created from the portal form');

        if (json) return void res.status(201).json(apiKeyOf(created));
        res.status(201).type('html').send(createdPage(created, urls));
      } catch (err) {
        const problem =
          err instanceof AppError ? err : isRedisUnavailable(err) ? serviceUnavailableError('A data store is briefly unavailable; send the form again in a few seconds.') : null;
        if (json || !problem) throw err;
        for (const [name, value] of Object.entries(problem.extra.headers ?? {})) res.setHeader(name, value);
        const values = { name: text(fields.name), email: text(fields.email), mode: text(fields.mode) };
        res.status(problem.status).type('html').send(problemPage(problem, values, urls, sandbox));
      }
    })
    .all(methodNotAllowed(env, ['POST']));

  return router;
}

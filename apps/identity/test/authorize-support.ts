// Drives the authorization code flow against the identity app the way a
// browser and an agent host would: a metadata document on a loopback server,
// the consent page's forms with their cookie and CSRF token, the code read
// from the mail queue, and the token endpoint.
import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { CallContext } from '@msa/contracts';
import type { IdentityHarness } from './identity-app.js';

export interface DocServer {
  origin: string;
  /** Answers `path` with `handler`. */
  route(path: string, handler: (req: IncomingMessage, res: ServerResponse) => void): string;
  close(): Promise<void>;
}

export async function startDocServer(): Promise<DocServer> {
  const routes = new Map<string, (req: IncomingMessage, res: ServerResponse) => void>();
  const server = createServer((req, res) => {
    const handler = routes.get(req.url ?? '');
    if (handler) handler(req, res);
    else res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    route(path, handler) {
      routes.set(path, handler);
      return `${origin}${path}`;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

export function json(body: unknown, headers: Record<string, string> = {}) {
  return (_req: IncomingMessage, res: ServerResponse) => {
    res.writeHead(200, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
  };
}

/** Serves a metadata document for a client whose redirect URI is `redirect`. */
export function serveClient(docs: DocServer, path: string, redirect = 'http://127.0.0.1:4711/callback', extra: Record<string, unknown> = {}): string {
  const clientId = `${docs.origin}${path}`;
  docs.route(path, json({ client_id: clientId, client_name: 'Test Host', redirect_uris: [redirect], token_endpoint_auth_method: 'none', ...extra }));
  return clientId;
}

export function pkce() {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

export function authorizeQuery(clientId: string, challenge: string, overrides: Record<string, string | undefined> = {}) {
  const q: Record<string, string | undefined> = {
    response_type: 'code',
    client_id: clientId,
    redirect_uri: 'http://127.0.0.1:4711/callback',
    code_challenge: challenge,
    code_challenge_method: 'S256',
    state: 'st-123',
    scope: 'catalog:read requests:write requests:read',
    ...overrides,
  };
  return Object.fromEntries(Object.entries(q).filter(([, v]) => v !== undefined)) as Record<string, string>;
}

export function hidden(html: string, name: string): string {
  const m = new RegExp(`name="${name}" value="([^"]*)"`).exec(html);
  if (!m) throw new Error(`no hidden field ${name} on the page`);
  return m[1]!;
}

/** The consent page's path, from the 303 of /oauth/authorize. */
export function consentPath(location: string): string {
  // The gateway removes /sandbox before identity sees the path.
  return new URL(location).pathname.replace(/^\/sandbox(?=\/)/, '');
}

export interface Flow {
  h: IdentityHarness;
  ctx: Partial<CallContext>;
}

/** Opens the consent page and asks for a code to `email`; returns the page path and its CSRF token. */
export async function startConsent(
  { h, ctx }: Flow,
  clientId: string,
  challenge: string,
  overrides: Record<string, string | undefined> = {},
): Promise<{ path: string; csrf: string; page: { status: number; text: string; headers: Record<string, string> } }> {
  const start = await h.api.get('/oauth/authorize').query(authorizeQuery(clientId, challenge, overrides)).set(h.as(ctx));
  if (start.status !== 303) throw new Error(`authorize answered ${start.status}: ${start.text}`);
  const path = consentPath(start.headers.location as string);
  const page = await h.api.get(path).set(h.as(ctx));
  return { path, csrf: hidden(page.text, 'csrf'), page };
}

/** The whole consent: e-mail, code from the queue, mode, approve. Returns the redirect URL. */
export async function consent(flow: Flow, clientId: string, challenge: string, opts: { email?: string; mode?: string; overrides?: Record<string, string | undefined> } = {}) {
  const { h, ctx } = flow;
  const { path, csrf } = await startConsent(flow, clientId, challenge, opts.overrides);
  const sent = await h.api.post(path).set(h.as(ctx)).type('form').send({ csrf, email: opts.email ?? `person-${randomBytes(4).toString('hex')}@example.org`, decision: 'send_code' });
  if (sent.status !== 303) throw new Error(`send_code answered ${sent.status}`);
  const mail = await h.lastConsentCode();
  if (!mail) throw new Error('no consent mail on the queue');
  const approved = await h.api.post(path).set(h.as(ctx)).type('form').send({ csrf, code: mail.code, mode: opts.mode ?? 'live', decision: 'approve' });
  if (approved.status !== 303) throw new Error(`approve answered ${approved.status}: ${approved.text.slice(0, 300)}`);
  return new URL(approved.headers.location as string);
}

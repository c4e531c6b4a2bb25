// What the agent-host OAuth tests share: an agent host on loopback (its
// Client ID Metadata Documents over https, its redirect URI over http), PKCE,
// the consent code read from the SMTP sink, the consent page driven with
// plain fetch the way a browser would (one cookie, manual redirects), and
// headless Chromium.
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { SmtpSink } from '@msa/test-kit';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const hasChromium = existsSync(CHROMIUM);
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

export interface AgentHost {
  /** https://127.0.0.1:<port>, serving metadata documents (certificate in fixtures/loopback-tls). */
  documentOrigin: string;
  /** http://127.0.0.1:<port>/callback, where the browser lands after the consent page. */
  redirectUri: string;
  /** Serves `path` on the https origin and returns its URL. */
  route(path: string, handler: Handler): string;
  /** Serves a valid metadata document at `path` (client_id = its URL) and returns that URL. */
  serveClient(path: string, clientName: string, extra?: Record<string, unknown>): string;
  /** The next request to the redirect URI, as a URL. */
  nextCallback(): Promise<URL>;
  close(): Promise<void>;
}

const tlsFile = (name: string) => readFileSync(new URL(`../fixtures/loopback-tls/${name}`, import.meta.url));

async function listen(server: Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

const closeServer = (server: Server) =>
  new Promise<void>((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  });

export function json(body: unknown, headers: Record<string, string> = {}): Handler {
  return (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
  };
}

export async function startAgentHost(): Promise<AgentHost> {
  const routes = new Map<string, Handler>();
  const documents = createHttpsServer({ key: tlsFile('key.pem'), cert: tlsFile('cert.pem') }, (req, res) => {
    const handler = routes.get(req.url ?? '');
    if (handler) handler(req, res);
    else res.writeHead(404).end();
  });
  const waiting: Array<(url: URL) => void> = [];
  const arrived: URL[] = [];
  const callbacks = createHttpServer((req, res) => {
    const url = new URL(req.url ?? '/', `http://${req.headers.host}`);
    if (url.pathname !== '/callback') return void res.writeHead(404).end();
    res
      .writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
      .end('<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Signed in</title><link rel="icon" href="data:,"></head><body><p>You can close this window.</p></body></html>');
    const next = waiting.shift();
    if (next) next(url);
    else arrived.push(url);
  });
  const documentOrigin = `https://127.0.0.1:${await listen(documents)}`;
  const redirectUri = `http://127.0.0.1:${await listen(callbacks)}/callback`;
  return {
    documentOrigin,
    redirectUri,
    route(path, handler) {
      routes.set(path, handler);
      return `${documentOrigin}${path}`;
    },
    serveClient(path, clientName, extra = {}) {
      const clientId = `${documentOrigin}${path}`;
      routes.set(path, json({ client_id: clientId, client_name: clientName, redirect_uris: [redirectUri], token_endpoint_auth_method: 'none', ...extra }));
      return clientId;
    },
    nextCallback() {
      const early = arrived.shift();
      return early ? Promise.resolve(early) : new Promise((resolve) => waiting.push(resolve));
    },
    async close() {
      await Promise.all([closeServer(documents), closeServer(callbacks)]);
    },
  };
}

export function pkce() {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

/** A fresh address per flow: the consent page sends at most five codes an hour to one address. */
export const personEmail = (who: string) => `${who}-${randomBytes(3).toString('hex')}@example.org`;

export async function waitUntil(check: () => boolean | Promise<boolean>, what: string, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`timed out waiting for ${what}`);
}

/**
 * The six-digit code of the `index`-th consent mail to `address` (0 = the
 * first), from its subject ("Ihr Bestätigungscode: 123456" or "Your
 * confirmation code: 123456").
 */
export async function consentCode(smtp: SmtpSink, address: string, index = 0): Promise<string> {
  await waitUntil(() => smtp.to(address).length > index, `consent mail ${index + 1} to ${address} at the SMTP sink`);
  const subject = smtp.to(address)[index]!.parsed.subject ?? '';
  const code = /\b(\d{6})\b/.exec(subject)?.[1];
  if (!code) throw new Error(`no six-digit code in the subject "${subject}"`);
  return code;
}

export function hiddenField(html: string, name: string): string {
  const m = new RegExp(`name="${name}" value="([^"]*)"`).exec(html);
  if (!m) throw new Error(`no hidden field ${name} on the page`);
  return m[1]!;
}

/**
 * The consent page driven like a browser without JavaScript: one binding
 * cookie, redirects not followed, forms sent as application/x-www-form-urlencoded.
 */
export class ConsentSession {
  cookie: string | undefined;
  /** The Set-Cookie header that set it. */
  setCookie: string | undefined;
  consentUrl: string | undefined;
  csrf: string | undefined;

  constructor(private readonly headers: Record<string, string> = {}) {}

  /** GET /oauth/authorize (redirect not followed). */
  async authorize(url: string | URL): Promise<Response> {
    const res = await fetch(url, { redirect: 'manual', headers: this.headers });
    const setCookie = res.headers.get('set-cookie');
    if (setCookie) {
      this.setCookie = setCookie;
      this.cookie = setCookie.split(';')[0];
    }
    if (res.status === 303) this.consentUrl = res.headers.get('location') ?? undefined;
    return res;
  }

  /** GET of the consent page; keeps its CSRF token. */
  async page(url = this.consentUrl): Promise<{ status: number; html: string }> {
    const res = await fetch(url!, { redirect: 'manual', headers: { ...this.headers, ...(this.cookie ? { cookie: this.cookie } : {}) } });
    const html = await res.text();
    if (res.status === 200) this.csrf = hiddenField(html, 'csrf');
    return { status: res.status, html };
  }

  /** A form POST to the consent page, with the CSRF token unless `fields` says otherwise. */
  async post(fields: Record<string, string | undefined>): Promise<Response> {
    const body = new URLSearchParams();
    for (const [k, v] of Object.entries({ csrf: this.csrf, ...fields })) if (v !== undefined) body.set(k, v);
    return fetch(this.consentUrl!, {
      method: 'POST',
      redirect: 'manual',
      headers: { ...this.headers, 'content-type': 'application/x-www-form-urlencoded', ...(this.cookie ? { cookie: this.cookie } : {}) },
      body,
    });
  }

  /** Types the address and sends the code; expects the 303 back to the page. */
  async sendCode(email: string): Promise<void> {
    const res = await this.post({ email, decision: 'send_code' });
    if (res.status !== 303) throw new Error(`send_code answered ${res.status}: ${(await res.text()).slice(0, 300)}`);
    await this.page();
  }

  /** Approves with `code` in `mode`; returns the redirect to the client. */
  async approve(code: string, mode: 'live' | 'sandbox'): Promise<URL> {
    const res = await this.post({ code, mode, decision: 'approve' });
    if (res.status !== 303) throw new Error(`approve answered ${res.status}: ${(await res.text()).slice(0, 300)}`);
    return new URL(res.headers.get('location')!);
  }
}

/** The whole consent with fetch: page, e-mail, code from the sink, approval. Returns the redirect to the client. */
export async function consentWithFetch(authorizationUrl: string | URL, smtp: SmtpSink, opts: { email: string; mode?: 'live' | 'sandbox' }): Promise<URL> {
  const session = new ConsentSession();
  const start = await session.authorize(authorizationUrl);
  if (start.status !== 303) throw new Error(`/oauth/authorize answered ${start.status}: ${(await start.text()).slice(0, 300)}`);
  if (!session.consentUrl?.includes('/oauth/consent/')) return new URL(session.consentUrl!);
  await session.page();
  await session.sendCode(opts.email);
  return session.approve(await consentCode(smtp, opts.email), opts.mode ?? 'live');
}

/** A shop request that passes validation, as the MCP tests send it. */
export function buildShopRequest(overrides: Record<string, unknown> = {}) {
  return {
    organization: { name: 'Pizzeria Da Marco', type: 'gastro', contact_name: 'Marco Beispiel', email: 'marco@example.org' },
    shop_name: 'Da Marco Team',
    products: [{ product: 'bio-t-shirt-unisex', colors: ['Schwarz'], designs: [{ position: 'Brust links', width_cm: 9 }] }],
    team_size: 12,
    ...overrides,
  };
}

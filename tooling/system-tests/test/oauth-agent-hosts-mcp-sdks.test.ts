// MCP hosts authorize through the consent page and then submit live shop
// requests: the SDK v2 client with a Client ID Metadata Document (served here
// on loopback https), the SDK v1 client registering itself through
// /oauth/register. Nothing is configured by hand: the anonymous tool call's
// 401 starts the SDK's OAuth flow, a real Chromium fills the consent page, the
// code comes from the SMTP sink, and the operator e-mail of the request says
// whose address was confirmed through which client. The consent page itself
// is checked at phone and desktop width in German and English.
import { randomBytes } from 'node:crypto';
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2, UnauthorizedError as UnauthorizedErrorV2, type OAuthClientProvider as ProviderV2 } from '@modelcontextprotocol/client';
import { UnauthorizedError as UnauthorizedErrorV1, type OAuthClientProvider as ProviderV1 } from '@modelcontextprotocol/sdk/client/auth.js';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startSmtpSink, type SmtpSink } from '@msa/test-kit';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSystem, type System } from '../src/system.js';
import {
  CHROMIUM,
  CHROMIUM_ARGS,
  buildShopRequest,
  consentCode,
  hasChromium,
  personEmail,
  pkce,
  startAgentHost,
  waitUntil,
  type AgentHost,
} from './oauth-agent-hosts-support.js';

const OPERATOR = 'operator@merch.test';

if (!hasChromium) console.warn(`oauth-agent-hosts-mcp-sdks: ${CHROMIUM} is missing, so the consent page is not opened in a browser and these tests are skipped (install chromium or set CHROMIUM_PATH)`);

let system: System;
let base: string;
let smtp: SmtpSink;
let host: AgentHost;
let browser: Browser;

beforeAll(async () => {
  smtp = await startSmtpSink();
  host = await startAgentHost();
  system = await startSystem({
    name: 'oauth-agent-hosts-mcp-sdks',
    worker: { smtpUrl: smtp.url, operatorEmail: OPERATOR },
    env: { CLIENT_METADATA_ALLOW_PRIVATE_NETWORKS: 'true' },
    gatewayEnv: { RATE_LIMIT_ANON_PER_MINUTE: '10000', RATE_LIMIT_PER_MINUTE: '10000' },
  });
  base = system.baseUrl;
  if (hasChromium) browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
});

afterAll(async () => {
  await browser?.close();
  await system?.close();
  await host?.close();
  await smtp?.close();
});

/**
 * What an agent host keeps between the 401 and the callback, in memory: the
 * client it registered (or its metadata document URL), the PKCE verifier,
 * discovery, tokens, and the authorization URL the SDK asked it to open.
 */
class MemoryOAuthProvider {
  readonly sentState = randomBytes(16).toString('base64url');
  authorizationUrl: URL | undefined;
  readonly savedClients: Array<Record<string, unknown>> = [];
  private client: Record<string, unknown> | undefined;
  private saved: Record<string, unknown> | undefined;
  private verifier: string | undefined;
  private discovery: unknown;

  constructor(
    readonly redirectUrl: string,
    readonly clientMetadata: { client_name: string; redirect_uris: string[]; grant_types: string[]; response_types: string[]; token_endpoint_auth_method: string },
    readonly clientMetadataUrl?: string,
  ) {}

  state() {
    return this.sentState;
  }
  clientInformation() {
    return this.client as never;
  }
  saveClientInformation(info: Record<string, unknown>) {
    this.client = info;
    this.savedClients.push(info);
  }
  tokens() {
    return this.saved as never;
  }
  saveTokens(tokens: Record<string, unknown>) {
    this.saved = tokens;
  }
  get accessToken(): string | undefined {
    return this.saved?.access_token as string | undefined;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    if (!this.verifier) throw new Error('no code verifier saved');
    return this.verifier;
  }
  saveDiscoveryState(state: unknown) {
    this.discovery = state;
  }
  discoveryState() {
    return this.discovery as never;
  }
}

function hostMetadata(clientName: string) {
  return {
    client_name: clientName,
    redirect_uris: [host.redirectUri],
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: 'none',
  };
}

/** Collects console errors and page errors of a page. */
function watchProblems(page: Page): string[] {
  const problems: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error') problems.push(`console: ${m.text()} (${m.location().url})`);
  });
  page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
  return problems;
}

/**
 * The person's part, in German as a browser in Germany asks for it: open the
 * authorization URL, type the address, read the code from the e-mail, choose
 * live, allow. Returns the URL the browser landed on at the host.
 */
async function consentInBrowser(authorizationUrl: URL, email: string): Promise<URL> {
  const context = await browser.newContext({ locale: 'de-DE' });
  const page = await context.newPage();
  const problems = watchProblems(page);
  const landed = host.nextCallback();

  await page.goto(authorizationUrl.href);
  await page.getByLabel('E-Mail-Adresse').fill(email);
  await page.getByRole('button', { name: 'Code senden' }).click();
  await page.getByLabel('Code aus der E-Mail').fill(await consentCode(smtp, email));
  await page.getByLabel(/^Live/).check();
  await page.getByRole('button', { name: 'Erlauben' }).click();
  const callback = await landed;
  await page.waitForURL((url) => url.href.startsWith(host.redirectUri));

  await context.close();
  expect(problems).toEqual([]);
  expect(smtp.to(email)[0]?.parsed.subject).toMatch(/^Ihr Bestätigungscode: \d{6}$/);
  return callback;
}

const mailsAbout = (id: string) => smtp.messages.filter((m) => m.parsed.messageId?.startsWith(`<${id}.`));

/** The operator e-mail of a live request, once the worker sent it. */
async function operatorMailOf(id: string) {
  await waitUntil(() => mailsAbout(id).some((m) => m.rcptTo.includes(OPERATOR)), `the operator e-mail of ${id}`);
  return mailsAbout(id).find((m) => m.rcptTo.includes(OPERATOR))!;
}

/** The operator e-mail's first line saying an address was confirmed ("… bestätigt: …"). */
function confirmedLineOf(text: string | undefined): string {
  const line = text?.split('\n').find((l) => /bestätigt/.test(l));
  if (!line) throw new Error(`the operator e-mail says nothing about a confirmed address:\n${text}`);
  return line;
}

describe('an anonymous create_shop_request on /mcp', () => {
  it('answers 401 with a Bearer challenge naming the resource metadata that leads to this authorization server', async () => {
    const res = await fetch(`${base}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'create_shop_request', arguments: buildShopRequest() } }),
    });
    const prm = (await (await fetch(`${base}/.well-known/oauth-protected-resource/mcp`)).json()) as { resource: string; authorization_servers: string[] };
    const as = (await (await fetch(`${base}/.well-known/oauth-authorization-server`)).json()) as Record<string, unknown>;

    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe(`Bearer resource_metadata="${base}/.well-known/oauth-protected-resource/mcp", scope="requests:write"`);
    expect(prm).toMatchObject({ resource: `${base}/mcp`, authorization_servers: [base] });
    expect(as).toMatchObject({
      issuer: base,
      authorization_endpoint: `${base}/oauth/authorize`,
      token_endpoint: `${base}/oauth/token`,
      registration_endpoint: `${base}/oauth/register`,
      revocation_endpoint: `${base}/oauth/revoke`,
      code_challenge_methods_supported: ['S256'],
      client_id_metadata_document_supported: true,
      authorization_response_iss_parameter_supported: true,
    });
  });
});

describe('an MCP host authorizing through the consent page', () => {
  it.skipIf(!hasChromium)('SDK v2 with a Client ID Metadata Document: the 401 opens the consent page, and after approval a live request reaches the operator marked as confirmed', async () => {
    const clientName = 'Werkbank Desktop';
    const clientId = host.serveClient('/werkbank/client.json', clientName);
    const email = personEmail('v2-host');
    const provider = new MemoryOAuthProvider(host.redirectUri, hostMetadata(clientName), clientId);
    const mcpUrl = new URL(`${base}/mcp`);
    const connect = async () => {
      const client = new ClientV2({ name: 'werkbank', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
      const transport = new TransportV2(mcpUrl, { authProvider: provider as unknown as ProviderV2 });
      await client.connect(transport);
      return { client, transport };
    };

    const first = await connect();
    const refused = await first.client.callTool({ name: 'create_shop_request', arguments: buildShopRequest() }).catch((err: unknown) => err);
    const authorizationUrl = provider.authorizationUrl!;
    const callback = await consentInBrowser(authorizationUrl, email);
    await first.transport.finishAuth(callback.searchParams);
    await first.client.close();
    const second = await connect();
    const result = await second.client.callTool({ name: 'create_shop_request', arguments: buildShopRequest({ shop_name: 'Werkbank Team' }) });
    await second.client.close();

    expect(refused).toBeInstanceOf(UnauthorizedErrorV2);
    expect(authorizationUrl.origin + authorizationUrl.pathname).toBe(`${base}/oauth/authorize`);
    expect(Object.fromEntries(authorizationUrl.searchParams)).toMatchObject({
      client_id: clientId,
      redirect_uri: host.redirectUri,
      code_challenge_method: 'S256',
      resource: `${base}/mcp`,
      state: provider.sentState,
    });
    expect(authorizationUrl.searchParams.get('scope')?.split(' ')).toContain('requests:write');
    expect(provider.savedClients[0]).toMatchObject({ client_id: clientId });
    expect(callback.searchParams.get('state')).toBe(provider.sentState);
    expect(callback.searchParams.get('iss')).toBe(base);
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({ status: 'received', sandbox: false, shop_name: 'Werkbank Team' });
    const operator = await operatorMailOf((result.structuredContent as { id: string }).id);
    const confirmed = confirmedLineOf(operator.parsed.text);
    expect(confirmed).toContain(email);
    expect(confirmed).toContain(clientName);
    expect(confirmed).toContain(clientId);
  });

  it.skipIf(!hasChromium)('SDK v1 registering itself: the 401 registers a public client, and after approval a live request reaches the operator marked as confirmed', async () => {
    const clientName = 'Kanzlei Assistent';
    const email = personEmail('v1-host');
    const provider = new MemoryOAuthProvider(host.redirectUri, hostMetadata(clientName));
    const mcpUrl = new URL(`${base}/mcp`);
    const connect = async () => {
      const client = new ClientV1({ name: 'kanzlei-assistent', version: '1.0.0' });
      const transport = new TransportV1(mcpUrl, { authProvider: provider as unknown as ProviderV1 });
      await client.connect(transport);
      return { client, transport };
    };

    const first = await connect();
    const refused = await first.client.callTool({ name: 'create_shop_request', arguments: buildShopRequest() }).catch((err: unknown) => err);
    const authorizationUrl = provider.authorizationUrl!;
    const callback = await consentInBrowser(authorizationUrl, email);
    await first.transport.finishAuth(callback.searchParams.get('code')!);
    await first.client.close();
    const second = await connect();
    const result = await second.client.callTool({ name: 'create_shop_request', arguments: buildShopRequest({ shop_name: 'Kanzlei Team' }) });
    await second.client.close();

    expect(refused).toBeInstanceOf(UnauthorizedErrorV1);
    const registered = provider.savedClients[0]!;
    expect(registered.client_id).toMatch(/^msa_pub_/);
    expect(registered).toMatchObject({ client_name: clientName, token_endpoint_auth_method: 'none', redirect_uris: [host.redirectUri] });
    expect(authorizationUrl.searchParams.get('client_id')).toBe(registered.client_id);
    expect(callback.searchParams.get('state')).toBe(provider.sentState);
    expect(callback.searchParams.get('iss')).toBe(base);
    expect(result.structuredContent).toMatchObject({ status: 'received', sandbox: false, shop_name: 'Kanzlei Team' });
    const operator = await operatorMailOf((result.structuredContent as { id: string }).id);
    const confirmed = confirmedLineOf(operator.parsed.text);
    expect(confirmed).toContain(email);
    expect(confirmed).toContain(clientName);
    expect(confirmed).toContain(registered.client_id as string);
  });
});

describe('the consent page in a browser', () => {
  let clientId: string;

  beforeAll(async () => {
    const res = await fetch(`${base}/oauth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ...hostMetadata('Layout Host'), grant_types: ['authorization_code', 'refresh_token'] }),
    });
    clientId = ((await res.json()) as { client_id: string }).client_id;
  });

  function authorizationUrl(): string {
    const q = new URLSearchParams({
      response_type: 'code',
      client_id: clientId,
      redirect_uri: host.redirectUri,
      code_challenge: pkce().challenge,
      code_challenge_method: 'S256',
      state: 'layout',
      scope: 'catalog:read requests:write requests:read',
    });
    return `${base}/oauth/authorize?${q}`;
  }

  /** What the layout checks need to know of the page as rendered. */
  async function measure(page: Page) {
    return page.evaluate(() => {
      const w = globalThis as unknown as {
        innerWidth: number;
        document: {
          documentElement: { scrollWidth: number; lang: string };
          querySelectorAll(s: string): ArrayLike<{ name: string; type: string; labels: ArrayLike<{ textContent: string | null }> | null }>;
        };
      };
      const fields = Array.from(w.document.querySelectorAll('input:not([type=hidden]), select, textarea'));
      return {
        lang: w.document.documentElement.lang,
        scrollWidth: w.document.documentElement.scrollWidth,
        innerWidth: w.innerWidth,
        unlabelled: fields.filter((f) => !f.labels || f.labels.length === 0 || !Array.from(f.labels).some((l) => l.textContent?.trim())).map((f) => `${f.type} ${f.name}`),
      };
    });
  }

  const attributes = (page: Page, selector: string, names: string[]) =>
    page.locator(selector).evaluate((el, list) => Object.fromEntries(list.map((n) => [n, (el as unknown as { getAttribute(a: string): string | null }).getAttribute(n)])), names);

  const WORDING = {
    de: { locale: 'de-DE', email: 'E-Mail-Adresse', send: 'Code senden', code: 'Code aus der E-Mail', live: /^Live/, sandbox: /^Sandbox/, approve: 'Erlauben', deny: 'Ablehnen', switchTo: 'English' },
    en: { locale: 'en-GB', email: 'E-mail address', send: 'Send code', code: 'Code from the e-mail', live: /^Live/, sandbox: /^Sandbox/, approve: 'Allow', deny: 'Deny', switchTo: 'Deutsch' },
  } as const;

  for (const lang of ['de', 'en'] as const) {
    for (const width of [360, 1280]) {
      it.skipIf(!hasChromium)(`fits ${width} px in ${lang === 'de' ? 'German' : 'English'} without sideways scroll or console errors, with labelled fields browsers can fill`, async () => {
        const t = WORDING[lang];
        const context = await browser.newContext({ locale: t.locale, viewport: { width, height: 800 } });
        const page = await context.newPage();
        const problems = watchProblems(page);
        const email = personEmail(`layout-${lang}-${width}`);

        await page.goto(authorizationUrl());
        const step1 = await measure(page);
        const emailField = await attributes(page, 'input[name=email]', ['type', 'autocomplete', 'required']);
        const emailForm = page.locator('form:has(input[name=email])');
        const sandboxForm = page.locator('form:not(:has(input[name=email])):has(button[name=decision])');
        const names = (els: unknown[]) => els.map((e) => (e as { name: string }).name).sort();
        const values = (els: unknown[]) => els.map((e) => (e as { value: string }).value);
        const hidden = await emailForm.locator('input[type=hidden]').evaluateAll(names);
        const step1Buttons = await emailForm.locator('button[name=decision]').evaluateAll(values);
        // The reviewer's way in: the sandbox without an address or a code.
        const sandboxHidden = await sandboxForm.locator('input[type=hidden]').evaluateAll(names);
        const sandboxFields = await sandboxForm.locator('input:not([type=hidden])').count();
        const sandboxButtons = await sandboxForm.locator('button[name=decision]').evaluateAll(values);
        await page.screenshot({ path: `/tmp/consent-${lang}-${width}-email.png`, fullPage: true });
        await page.getByLabel(t.email).fill(email);
        await page.getByRole('button', { name: t.send }).click();
        await page.getByLabel(t.code).waitFor();
        const step2 = await measure(page);
        const codeField = await attributes(page, 'input[name=code]', ['autocomplete', 'inputmode']);
        const modes = await page.locator('input[type=radio][name=mode]').evaluateAll((els) => els.map((e) => (e as unknown as { value: string }).value));
        await page.getByLabel(t.live).check();
        await page.getByLabel(t.code).fill('123');
        await page.screenshot({ path: `/tmp/consent-${lang}-${width}-code.png`, fullPage: true });
        await context.close();

        for (const step of [step1, step2]) {
          expect(step.lang).toBe(lang);
          expect(step.innerWidth).toBe(width);
          expect(step.scrollWidth).toBeLessThanOrEqual(step.innerWidth);
          expect(step.unlabelled).toEqual([]);
        }
        expect(emailField).toEqual({ type: 'email', autocomplete: 'email', required: '' });
        expect(hidden).toEqual(['csrf', 'lang']);
        expect(step1Buttons).toEqual(['send_code', 'deny']);
        expect(sandboxHidden).toEqual(['csrf', 'lang', 'mode']);
        expect(sandboxFields).toBe(0);
        expect(sandboxButtons).toEqual(['approve']);
        expect(codeField).toEqual({ autocomplete: 'one-time-code', inputmode: 'numeric' });
        expect(modes).toEqual(['live', 'sandbox']);
        expect(problems).toEqual([]);
      });
    }
  }

  it.skipIf(!hasChromium)('switches between German and English with its link and keeps the page', async () => {
    const context = await browser.newContext({ locale: 'de-DE' });
    const page = await context.newPage();
    const problems = watchProblems(page);

    await page.goto(authorizationUrl());
    const german = await page.locator('h1').textContent();
    await page.getByRole('link', { name: 'English' }).click();
    await page.getByLabel('E-mail address').waitFor();
    const english = await page.locator('h1').textContent();
    const lang = await page.locator('html').getAttribute('lang');
    const url = new URL(page.url());
    await context.close();

    expect(german).toBe('Zugriff erlauben');
    expect(english).toBe('Allow access');
    expect(lang).toBe('en');
    expect(url.searchParams.get('lang')).toBe('en');
    expect(url.pathname).toMatch(/^\/oauth\/consent\/[0-9A-Za-z]{32}$/);
    expect(problems).toEqual([]);
  });
});

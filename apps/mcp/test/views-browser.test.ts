// The views in a real browser with the extension's own host side: the SDK's
// AppBridge (bundled with esbuild) runs in a page, loads each view read from
// the running mcp service into a sandboxed iframe, delivers a real tool
// result, and the test looks at what a person sees and clicks the buttons.
// With VIEW_SCREENSHOTS=1 (`pnpm -F @msa/views screenshots`) it also writes
// screenshots of each view at 390 and 760 px to docs/screenshots/; a plain
// test run leaves the committed pictures alone.
import { build } from 'esbuild';
import { existsSync, mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callTool, legacyRequest, sandboxPrincipal, startMcpHarness, type McpHarness } from './support.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const hasChromium = existsSync(CHROMIUM);
if (!hasChromium) console.warn(`views-browser: ${CHROMIUM} is missing, so the views are not rendered in a browser (install chromium or set CHROMIUM_PATH)`);

const HOST_URL = 'http://views-host.test/';
const SCREENSHOTS = process.env.VIEW_SCREENSHOTS === '1' ? fileURLToPath(new URL('../../../docs/screenshots/', import.meta.url)) : null;
const SANDBOX = { ctx: { sandbox: true }, headers: { 'X-Forwarded-Prefix': '/sandbox' } };

// The host page: an AppBridge per view, the view in an iframe with scripts
// only, and the CSP a host builds from the view's (empty) `_meta.ui.csp`.
const HOST_SOURCE = `
import { AppBridge, PostMessageTransport } from '@modelcontextprotocol/ext-apps/app-bridge';
const CSP = "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:; connect-src 'none'; frame-src 'none'; base-uri 'self'; object-src 'none'";
window.showView = async ({ html, hostContext, input, result, width }) => {
  const iframe = document.createElement('iframe');
  iframe.setAttribute('sandbox', 'allow-scripts');
  iframe.style.cssText = 'border:0;display:block;width:' + width + 'px;height:200px';
  document.body.replaceChildren(iframe);
  const bridge = new AppBridge(null, { name: 'views-test-host', version: '1.0.0' }, { serverTools: {} }, { hostContext });
  bridge.oncalltool = (params) => window.hostCallTool(params);
  bridge.onsizechange = ({ height }) => { if (height) iframe.style.height = height + 'px'; };
  const initialized = new Promise((resolve) => { bridge.oninitialized = resolve; });
  await bridge.connect(new PostMessageTransport(iframe.contentWindow, iframe.contentWindow));
  iframe.srcdoc = html.replace('<head>', '<head><meta http-equiv="Content-Security-Policy" content="' + CSP + '">');
  await initialized;
  await bridge.sendToolInput({ arguments: input });
  await bridge.sendToolResult(result);
  window.hostBridge = bridge;
};
window.changeHostContext = (ctx) => window.hostBridge.setHostContext(ctx);
window.teardown = () => window.hostBridge.teardownResource({ reason: 'test' });
`;

type Browser = Awaited<ReturnType<(typeof import('playwright-core'))['chromium']['launch']>>;
type Page = Awaited<ReturnType<Browser['newPage']>>;

let h: McpHarness;
let browser: Browser;
let hostScript: string;

beforeAll(async () => {
  if (!hasChromium) return;
  h = await startMcpHarness('mcp-views-browser');
  const bundled = await build({
    stdin: { contents: HOST_SOURCE, resolveDir: fileURLToPath(new URL('.', import.meta.url)), loader: 'js' },
    bundle: true,
    write: false,
    format: 'iife',
    platform: 'browser',
    logLevel: 'silent',
  });
  hostScript = bundled.outputFiles[0]!.text;
  const { chromium } = await import('playwright-core');
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
  if (SCREENSHOTS) mkdirSync(SCREENSHOTS, { recursive: true });
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await h?.close();
});

interface Opened {
  page: Page;
  /** Every request the page made besides loading the host page itself. */
  requests: string[];
  consoleErrors: string[];
  toolCalls: Array<{ name: string; arguments: Record<string, unknown> }>;
}

/** Reads a view from the mcp service, as a host does. */
async function readView(uri: string): Promise<string> {
  const res = await h.rpc(legacyRequest('resources/read', { uri })).expect(200);
  return res.body.result.contents[0].text as string;
}

/** A tool call through the mcp service; the body of a refused call (401) is thrown, as a host's client would. */
async function mcpCall(name: string, args: Record<string, unknown>, opts: { ctx?: Record<string, unknown>; headers?: Record<string, string> }) {
  const res = await h.rpc(callTool(name, args), opts);
  if (res.status !== 200) throw new Error(`HTTP ${res.status}: ${res.body?.error?.message ?? ''}`);
  if (res.body.error) throw new Error(res.body.error.message);
  return res.body.result as Record<string, unknown>;
}

async function openHost(width: number, callOpts: { ctx?: Record<string, unknown>; headers?: Record<string, string> }): Promise<Opened> {
  const page = await browser.newPage({ viewport: { width, height: 900 } });
  const opened: Opened = { page, requests: [], consoleErrors: [], toolCalls: [] };
  await page.route('**/*', (route) => {
    const url = route.request().url();
    if (url === HOST_URL) return route.fulfill({ contentType: 'text/html', body: `<!doctype html><html><body style="margin:0"></body><script>${hostScript}</script></html>` });
    opened.requests.push(url);
    return route.abort();
  });
  page.on('console', (m) => {
    if (m.type() === 'error') opened.consoleErrors.push(m.text());
  });
  page.on('pageerror', (e) => opened.consoleErrors.push(e.message));
  await page.exposeFunction('hostCallTool', async (params: { name: string; arguments: Record<string, unknown> }) => {
    opened.toolCalls.push(params);
    return mcpCall(params.name, params.arguments ?? {}, callOpts);
  });
  await page.goto(HOST_URL);
  return opened;
}

async function show(o: Opened, view: string, input: Record<string, unknown>, result: Record<string, unknown>, hostContext: Record<string, unknown>): Promise<void> {
  const html = await readView(`ui://merch-shop/${view}.html`);
  const width = o.page.viewportSize()!.width;
  await o.page.evaluate((args) => (window as unknown as { showView(a: unknown): Promise<void> }).showView(args), { html, hostContext, input, result, width });
}

const viewFrame = (o: Opened) => o.page.frameLocator('iframe');
const euros = (locale: string, value: number) => new Intl.NumberFormat(locale, { style: 'currency', currency: 'EUR' }).format(value);

async function screenshot(o: Opened, name: string): Promise<void> {
  if (!SCREENSHOTS) return;
  await o.page.locator('iframe').screenshot({ path: `${SCREENSHOTS}${name}.png` });
}

async function expectClean(o: Opened): Promise<void> {
  expect(o.requests).toEqual([]);
  expect(o.consoleErrors).toEqual([]);
  await o.page.close();
}

const light = { locale: 'de-DE', theme: 'light', timeZone: 'Europe/Berlin' };
const dark = { locale: 'en-US', theme: 'dark', timeZone: 'America/New_York' };

describe.skipIf(!hasChromium)('the views in a browser, hosted by the SDK AppBridge', () => {
  it('shows product cards with prices in de-DE and en-US, light and dark', async () => {
    const input = { q: 'hoodie', limit: 2 };
    const result = await mcpCall('search_products', input, {});
    const products = (result.structuredContent as { products: Array<{ title: string; quantity_prices_dtf?: { tiers: Array<{ brutto: number }> } }> }).products;
    const first = products[0]!;
    const gross = first.quantity_prices_dtf!.tiers[0]!.brutto;

    for (const width of [390, 760]) {
      const o = await openHost(width, {});
      await show(o, 'product-view', input, result, light);
      const frame = viewFrame(o);
      await expect.poll(() => frame.locator('h2').first().textContent()).toBe(first.title);
      await expect.poll(() => frame.locator('body').innerText()).toContain(euros('de-DE', gross));
      expect(await frame.locator('button', { hasText: 'Shop anfragen' }).count()).toBe(products.length);
      await screenshot(o, `product-view-${width}-de-light`);

      await o.page.evaluate((ctx) => (window as unknown as { changeHostContext(c: unknown): void }).changeHostContext(ctx), dark);
      await expect.poll(() => frame.locator('body').innerText()).toContain(euros('en-US', gross));
      expect(await frame.locator('html').getAttribute('data-theme')).toBe('dark');
      expect(await frame.locator('button', { hasText: 'Request shop' }).count()).toBe(products.length);
      await screenshot(o, `product-view-${width}-en-dark`);
      await expectClean(o);
    }
  });

  it('re-tints the garment in the colour the person picks', async () => {
    const result = await mcpCall('get_product', { handle: 'bio-t-shirt-unisex' }, {});
    const o = await openHost(760, {});
    await show(o, 'product-view', { handle: 'bio-t-shirt-unisex' }, result, dark);
    const frame = viewFrame(o);
    await frame.locator('button[data-color="Bordeaux"]').click();
    await expect.poll(() => frame.locator('.figure svg').getAttribute('aria-label')).toBe('Bio T-Shirt Unisex, Bordeaux');
    await expectClean(o);
  });

  it('shows a quote with its lines and totals in both locales', async () => {
    const input = { organization_type: 'unternehmen', lines: [{ product: 'bio-t-shirt-unisex', quantity: 40, colors: ['Schwarz'] }] };
    const result = await mcpCall('get_quote', input, {});
    const quote = result.structuredContent as { total_net: number; vat: number; total_gross: number; lines: Array<{ product: string }> };

    for (const width of [390, 760]) {
      const o = await openHost(width, {});
      await show(o, 'quote-view', input, result, light);
      const frame = viewFrame(o);
      await expect.poll(() => frame.locator('[data-total="gross"]').textContent()).toBe(euros('de-DE', quote.total_gross));
      expect(await frame.locator('[data-total="net"]').textContent()).toBe(euros('de-DE', quote.total_net));
      expect(await frame.locator('[data-total="vat"]').textContent()).toBe(euros('de-DE', quote.vat));
      expect(await frame.locator('table.lines').innerText()).toContain(quote.lines[0]!.product);
      await screenshot(o, `quote-view-${width}-de-light`);

      await o.page.evaluate((ctx) => (window as unknown as { changeHostContext(c: unknown): void }).changeHostContext(ctx), dark);
      await expect.poll(() => frame.locator('[data-total="gross"]').textContent()).toBe(euros('en-US', quote.total_gross));
      await screenshot(o, `quote-view-${width}-en-dark`);
      await expectClean(o);
    }
  });

  it('shows a sandbox shop request as never sent', async () => {
    const input = {
      organization: { name: 'TSV Musterstadt', type: 'verein', contact_name: 'Erika Muster', email: 'erika@example.org' },
      shop_name: 'TSV Fanshop',
      products: [{ product: 'bio-t-shirt-unisex', colors: ['Schwarz'] }],
    };
    const result = await mcpCall('create_shop_request', input, { ctx: { principal: sandboxPrincipal(), sandbox: true } });
    const id = (result.structuredContent as { id: string }).id;

    for (const width of [390, 760]) {
      const o = await openHost(width, {});
      await show(o, 'request-view', input, result, width === 390 ? light : dark);
      const frame = viewFrame(o);
      await expect.poll(() => frame.locator('[data-field="id"]').textContent()).toBe(id);
      expect(await frame.locator('body').innerText()).toMatch(/Nichts wurde gesendet|nothing was sent/);
      await screenshot(o, `request-view-${width}-${width === 390 ? 'de-light' : 'en-dark'}`);
      await expectClean(o);
    }
  });

  it('turns the person\'s click on "Request shop" into create_shop_request through the host, on the sandbox, and shows the request read back', async () => {
    const input = { organization_type: 'verein', lines: [{ product: 'bio-t-shirt-unisex', quantity: 20, colors: ['Navy'] }] };
    const result = await mcpCall('get_quote', input, SANDBOX);
    const o = await openHost(760, SANDBOX);
    await show(o, 'quote-view', input, result, dark);
    const frame = viewFrame(o);
    await frame.getByRole('button', { name: 'Request shop' }).click();
    await frame.getByLabel('Organization name').fill('TSV Musterstadt');
    expect(await frame.getByLabel('Organization type').inputValue()).toBe('verein');
    await frame.getByLabel('Contact name').fill('Erika Muster');
    await frame.getByLabel('E-mail').fill('erika@example.org');
    expect(await frame.getByLabel('Shop name').inputValue()).toBe('TSV Musterstadt Shop');
    await screenshot(o, 'quote-view-760-en-dark-form');
    await frame.getByRole('button', { name: 'Send request' }).click();

    await expect.poll(() => frame.locator('[data-field="id"]').count()).toBe(1);
    const id = (await frame.locator('[data-field="id"]').textContent())!;
    expect(o.toolCalls.map((c) => c.name)).toEqual(['create_shop_request', 'get_shop_request']);
    expect(o.toolCalls[0]!.arguments).toMatchObject({
      organization: { name: 'TSV Musterstadt', type: 'verein', contact_name: 'Erika Muster', email: 'erika@example.org' },
      shop_name: 'TSV Musterstadt Shop',
      products: [{ product: 'bio-t-shirt-unisex', colors: ['Navy'] }],
      quote_id: (result.structuredContent as { quote_id: string }).quote_id,
    });
    expect(await frame.locator('body').innerText()).toContain('nothing was sent');

    const stored = await mcpCall('get_shop_request', { id }, SANDBOX);
    expect(stored.structuredContent).toMatchObject({ id, sandbox: true, organization: 'TSV Musterstadt', shop_name: 'TSV Musterstadt Shop' });
    await expectClean(o);
  });

  it('on /mcp without credentials leaves the click to the host\'s sign-in and creates nothing', async () => {
    const result = await mcpCall('get_product', { handle: 'bio-t-shirt-unisex' }, {});
    const o = await openHost(760, {});
    await show(o, 'product-view', { handle: 'bio-t-shirt-unisex' }, result, light);
    const frame = viewFrame(o);
    await frame.getByRole('button', { name: 'Shop anfragen' }).click();
    await frame.getByLabel('Name der Organisation').fill('Bäckerei Beispiel');
    await frame.getByLabel('Art der Organisation').selectOption('handwerk');
    await frame.getByLabel('Ansprechperson').fill('Max Beispiel');
    await frame.getByLabel('E-Mail').fill('max@example.org');
    await frame.getByLabel('Name des Shops').fill('Bäckerei Shop');
    await frame.getByRole('button', { name: 'Anfrage senden' }).click();

    await expect.poll(() => frame.locator('.status').textContent()).toContain('Anmeldung');
    expect(o.toolCalls.map((c) => c.name)).toEqual(['create_shop_request']);
    expect(o.consoleErrors.filter((e) => !e.includes('HTTP 401'))).toEqual([]);
    expect(o.requests).toEqual([]);
    await o.page.close();
  });

  it('answers "Get a quote" with get_quote through the host and shows the quote', async () => {
    const result = await mcpCall('get_product', { handle: 'bio-t-shirt-unisex' }, {});
    const o = await openHost(390, {});
    await show(o, 'product-view', { handle: 'bio-t-shirt-unisex' }, result, light);
    const frame = viewFrame(o);
    await frame.getByRole('button', { name: 'Angebot berechnen' }).click();
    await frame.getByLabel('Art der Organisation').selectOption('unternehmen');
    await frame.getByLabel('Stückzahl').fill('50');
    await frame.getByRole('button', { name: 'Berechnen', exact: true }).click();
    await expect.poll(() => frame.locator('[data-total="gross"]').count()).toBe(1);
    expect(o.toolCalls).toEqual([{ name: 'get_quote', arguments: { organization_type: 'unternehmen', lines: [{ product: 'bio-t-shirt-unisex', quantity: 50, colors: ['Schwarz'] }] } }]);
    await expectClean(o);
  });

  it('answers the host\'s teardown request', async () => {
    const result = await mcpCall('get_product', { handle: 'bio-t-shirt-unisex' }, {});
    const o = await openHost(390, {});
    await show(o, 'product-view', {}, result, light);
    expect(await o.page.evaluate(() => (window as unknown as { teardown(): Promise<unknown> }).teardown())).toEqual({});
    await expectClean(o);
  });
});

// The documents through the gateway: every documentation URL in Markdown,
// every link of the service document answering, the OpenAPI document valid
// (OpenAPI 3.1 schema and Redocly's linter), and the developer portal as a
// browser renders it.
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ERROR_CODE_LIST, OPERATION_IDS } from '@msa/contracts';
import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSystem, type System } from '../src/system.js';

const run = promisify(execFile);
const require = createRequire(import.meta.url);

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const hasChromium = existsSync(CHROMIUM);
if (!hasChromium) console.warn(`docs-documents: ${CHROMIUM} is missing, so the developer portal is not rendered in a browser (install chromium or set CHROMIUM_PATH)`);

let system: System;

beforeAll(async () => {
  system = await startSystem({ name: 'docs-documents', gatewayEnv: { RATE_LIMIT_ANON_PER_MINUTE: '10000' } });
});

afterAll(async () => {
  await system?.close();
});

const get = (path: string, accept?: string) => fetch(`${system.baseUrl}${path}`, { headers: accept ? { accept } : {} });

const DOCUMENTS: Record<string, string> = {
  '/': 'application/json',
  '/openapi.json': 'application/json',
  '/llms.txt': 'text/markdown',
  '/agents.md': 'text/markdown',
  '/v1/versioning': 'application/json',
  '/v1/onboarding': 'application/json',
  '/v1/keys': 'application/json',
  '/developers': 'text/html',
};

describe('documentation URLs through the gateway', () => {
  for (const [path, type] of Object.entries(DOCUMENTS)) {
    it(`GET ${path} answers ${type} without credentials and Markdown on Accept: text/markdown`, async () => {
      const plain = await get(path);
      const markdown = await get(path, 'text/markdown');

      expect(plain.status).toBe(200);
      expect(plain.headers.get('content-type')).toContain(type);
      expect(plain.headers.get('api-version')).toBe('1');
      expect(markdown.status).toBe(200);
      expect(markdown.headers.get('content-type')).toBe('text/markdown; charset=utf-8');
      const text = await markdown.text();
      expect(text).toMatch(/^# /);
      expect(text).not.toContain('{{');
      expect(text).toContain(system.baseUrl);
    });

    it(`GET /sandbox${path === '/' ? '' : path} links API calls to the sandbox`, async () => {
      const res = await get(`/sandbox${path === '/' ? '/' : path}`, 'text/markdown');

      expect(res.status).toBe(200);
      expect(await res.text()).toContain(`${system.baseUrl}/sandbox`);
    });
  }

  it('advertises the Markdown alternate of JSON and HTML documents', async () => {
    const portal = await get('/developers');
    const onboarding = await get('/v1/onboarding');

    expect(portal.headers.get('link')).toContain(`<${system.baseUrl}/developers>; rel="alternate"; type="text/markdown"`);
    expect(onboarding.headers.get('link')).toBe(`<${system.baseUrl}/v1/onboarding>; rel="alternate"; type="text/markdown"`);
  });

  it('answers a repeated request with 304 when the ETag matches', async () => {
    const first = await get('/llms.txt');

    const second = await fetch(`${system.baseUrl}/llms.txt`, { headers: { 'if-none-match': first.headers.get('etag')! } });

    expect(second.status).toBe(304);
  });

  it('serves llms.txt with links to every Markdown document', async () => {
    const text = await (await get('/llms.txt')).text();

    for (const path of ['/agents.md', '/developers', '/v1/onboarding', '/v1/versioning', '/openapi.json', '/']) {
      expect(text).toContain(`](${system.baseUrl}${path})`);
    }
  });

  it('serves a service document whose every link answers', async () => {
    const doc = (await (await get('/')).json()) as { links: Record<string, { href: string; method: string; auth: string; templated?: boolean }> };

    // A quote link needs a quote that exists.
    const quote = (await (
      await fetch(`${system.baseUrl}/v1/quotes`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ organization_type: 'verein', lines: [{ product: 'bio-t-shirt-unisex', quantity: 1 }] }),
      })
    ).json()) as { quote_id: string };

    const checked: string[] = [];
    for (const [rel, link] of Object.entries(doc.links)) {
      if (link.method !== 'GET' || link.auth === 'required') continue;
      const href = link.templated ? link.href.replace('{handle}', 'bio-t-shirt-unisex').replace('{id}', quote.quote_id) : link.href;
      const res = await fetch(href, { headers: { accept: 'application/json' } });
      expect(res.status, `${rel} ${href}`).toBe(200);
      checked.push(rel);
    }
    expect(checked).toEqual(expect.arrayContaining(['products', 'product', 'pricing', 'shops', 'quote', 'oauth_authorization_server_metadata', 'oauth_protected_resource_metadata', 'jwks', 'sandbox']));
  });

  it('links error envelopes to an anchor the developer portal has', async () => {
    const error = (await (await get('/v1/products/no-such-product')).json()) as { error: { code: string; docs: string } };
    const portal = await (await get('/developers')).text();

    expect(error.error.docs).toBe(`${system.baseUrl}/developers#product_not_found`);
    expect(portal).toContain(`id="${error.error.code}"`);
  });
});

describe('GET /openapi.json through the gateway', () => {
  let doc: { openapi: string; servers: { url: string }[]; paths: Record<string, Record<string, { operationId?: string }>> };

  beforeAll(async () => {
    doc = (await (await get('/openapi.json')).json()) as typeof doc;
  });

  it('has every operationId of the specification, and the quotes and personal data operations added since', () => {
    const ids = Object.values(doc.paths).flatMap((item) => Object.values(item).map((op) => op.operationId));

    expect(ids.sort()).toEqual([...OPERATION_IDS].sort());
    expect(OPERATION_IDS).toHaveLength(21);
    expect(OPERATION_IDS).toEqual(expect.arrayContaining(['createQuote', 'getQuote', 'exportPersonalData', 'erasePersonalData']));
  });

  it('lists production and sandbox servers, the sandbox first on the sandbox path', async () => {
    const sandbox = (await (await get('/sandbox/openapi.json')).json()) as typeof doc;

    expect(doc.servers.map((s) => s.url)).toEqual([system.baseUrl, `${system.baseUrl}/sandbox`]);
    expect(sandbox.servers.map((s) => s.url)).toEqual([`${system.baseUrl}/sandbox`, system.baseUrl]);
  });

  it('validates as OpenAPI 3.1', async () => {
    const validator = new Validator();

    const result = await validator.validate(structuredClone(doc) as unknown as Record<string, unknown>);

    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
  });

  it('passes redocly lint without errors', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'msa-redocly-'));
    try {
      const file = join(dir, 'openapi.json');
      writeFileSync(file, JSON.stringify(doc));
      const cli = join(require.resolve('@redocly/cli/package.json'), '..', 'bin', 'cli.js');

      // redocly exits 1 on errors; the JSON report is on stdout either way.
      const out = await run(process.execPath, [cli, 'lint', file, '--format=json'], {
        env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
        maxBuffer: 16 * 1024 * 1024,
      }).catch((err: { stdout?: string }) => ({ stdout: err.stdout ?? '' }));
      const report = JSON.parse(out.stdout) as { totals: { errors: number; warnings: number }; problems: { severity: string; ruleId: string; message: string }[] };

      expect(report.problems.filter((p) => p.severity === 'error')).toEqual([]);
      expect(report.totals.errors).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('the developer portal in a browser', () => {
  type Browser = Awaited<ReturnType<(typeof import('playwright-core'))['chromium']['launch']>>;
  let browser: Browser;

  beforeAll(async () => {
    if (!hasChromium) return;
    const { chromium } = await import('playwright-core');
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'],
    });
  });

  afterAll(async () => {
    await browser?.close();
  });

  it.skipIf(!hasChromium)('shows the quick start and has an element with the id of every error code', async () => {
    const page = await browser.newPage();
    const requests: string[] = [];
    page.on('request', (r) => requests.push(r.url()));

    const res = await page.goto(`${system.baseUrl}/developers`, { waitUntil: 'networkidle' });

    expect(res?.status()).toBe(200);
    expect(await page.title()).toContain('developer portal');
    await expect(page.locator('#quick-start').isVisible()).resolves.toBe(true);
    expect(await page.locator('#quick-start ~ pre').first().textContent()).toContain('curl');
    const missing = await page.evaluate((codes) => {
      // Runs in the page; this package compiles without the DOM types.
      const doc = (globalThis as unknown as { document: { getElementById(id: string): unknown } }).document;
      return codes.filter((code) => doc.getElementById(code) === null);
    }, ERROR_CODE_LIST);
    expect(missing).toEqual([]);
    // Self-contained: the page loads nothing but itself and, perhaps, its icon.
    expect(requests.filter((url) => url !== `${system.baseUrl}/favicon.ico`)).toEqual([`${system.baseUrl}/developers`]);
    await page.goto(`${system.baseUrl}/developers#rate_limited`);
    expect(await page.locator(':target').getAttribute('id')).toBe('rate_limited');
    await page.close();
  });

  // A desktop browser asks for the icon on every visit and logs a 404 as a console error.
  it.skipIf(!hasChromium)('links an icon that answers as SVG', async () => {
    const page = await browser.newPage();
    await page.goto(`${system.baseUrl}/developers`);

    const href = await page.locator('link[rel="icon"]').getAttribute('href');
    const icon = await page.request.get(new URL(href!, page.url()).href);

    expect(icon.status()).toBe(200);
    expect(icon.headers()['content-type']).toContain('image/svg+xml');
    expect(await icon.text()).toContain('<svg');
    await page.close();
  });

  for (const width of [360, 1280]) {
    it.skipIf(!hasChromium)(`renders at ${width} px without console errors and without sideways scroll`, async () => {
      const page = await browser.newPage({ viewport: { width, height: 800 } });
      const problems: string[] = [];
      page.on('console', (m) => {
        if (m.type() === 'error') problems.push(`console: ${m.text()} (${m.location().url})`);
      });
      page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
      page.on('response', (r) => {
        if (r.status() >= 400) problems.push(`${r.status()} ${r.url()}`);
      });

      // Headless Chromium does not fetch the icon itself (this test passed while
      // /favicon.ico was a 404), so the test above fetches the linked icon.
      await page.goto(`${system.baseUrl}/developers`, { waitUntil: 'networkidle' });
      const size = await page.evaluate(() => {
        const w = globalThis as unknown as { innerWidth: number; document: { documentElement: { scrollWidth: number } } };
        return { scrollWidth: w.document.documentElement.scrollWidth, innerWidth: w.innerWidth };
      });
      if (width === 360 && process.env.PORTAL_SCREENSHOT) await page.screenshot({ path: process.env.PORTAL_SCREENSHOT });

      expect(problems).toEqual([]);
      expect(size.innerWidth).toBe(width);
      expect(size.scrollWidth).toBeLessThanOrEqual(size.innerWidth);
      await page.close();
    });
  }
});

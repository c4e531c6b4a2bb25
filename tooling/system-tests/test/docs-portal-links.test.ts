// Every link of every portal page resolves: the developer portal (production
// and sandbox) and the legal pages in each language, fetched through the real
// gateway. Each same-origin `href` and `src` is followed and must answer 2xx
// or 3xx, and a fragment must name an `id` on the page it points at.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSystem, type System } from '../src/system.js';

let system: System;

beforeAll(async () => {
  system = await startSystem({ name: 'docs-portal-links', gatewayEnv: { RATE_LIMIT_ANON_PER_MINUTE: '100000' } });
});

afterAll(async () => {
  await system?.close();
});

/** Each portal page, with the language it is asked for in. */
const PAGES: { path: string; lang: 'de' | 'en' }[] = [
  ...['/developers', '/sandbox/developers'].flatMap((path) => (['de', 'en'] as const).map((lang) => ({ path, lang }))),
  ...['/privacy', '/terms', '/imprint'].flatMap((page) =>
    ['', '/sandbox'].flatMap((prefix) => (['de', 'en'] as const).map((lang) => ({ path: `${prefix}${page}`, lang }))),
  ),
];

const HTML_ENTITY: Record<string, string> = { '&amp;': '&', '&quot;': '"', '&lt;': '<', '&gt;': '>', '&#39;': "'" };

/** Every `href` and `src` attribute's value, entities decoded. */
function linksOf(html: string): string[] {
  return [...html.matchAll(/\s(?:href|src)="([^"]*)"/g)].map((m) => m[1]!.replace(/&(?:amp|quot|lt|gt|#39);/g, (e) => HTML_ENTITY[e]!));
}

const idsOf = (html: string) => new Set([...html.matchAll(/\sid="([^"]*)"/g)].map((m) => m[1]!));

describe('the portal pages', () => {
  it('answer every same-origin link of every page, each language, with 2xx or 3xx, and every fragment with its id', async () => {
    const origin = new URL(system.baseUrl).origin;
    // Keyed by URL and language: a legal page's German and English copies share a URL.
    const pageHtml = new Map<string, string>();
    const broken: string[] = [];
    const targets = new Map<string, { url: string; lang: string; from: string }>();
    const fragments: { from: string; key: string; id: string }[] = [];

    for (const { path, lang } of PAGES) {
      const res = await fetch(`${system.baseUrl}${path}`, { headers: { accept: 'text/html', 'accept-language': lang } });
      expect(res.status, path).toBe(200);
      const html = await res.text();
      const page = `${system.baseUrl}${path}`;
      pageHtml.set(`${page}|${lang}`, html);
      for (const raw of linksOf(html)) {
        const url = new URL(raw, page);
        if (url.origin !== origin) continue;
        const bare = `${url.origin}${url.pathname}${url.search}`;
        const key = `${bare}|${lang}`;
        if (!targets.has(key)) targets.set(key, { url: bare, lang, from: `${path} (${lang})` });
        if (url.hash) fragments.push({ from: `${path} (${lang})`, key, id: decodeURIComponent(url.hash.slice(1)) });
      }
    }

    for (const [key, { url, lang, from }] of targets) {
      const res = await fetch(url, { redirect: 'manual', headers: { accept: 'text/html', 'accept-language': lang } });
      if (res.status < 200 || res.status >= 400) broken.push(`${url} (linked from ${from}) answered ${res.status}`);
      if (res.headers.get('content-type')?.startsWith('text/html') && !pageHtml.has(key)) pageHtml.set(key, await res.text());
      else await res.body?.cancel();
    }
    for (const { from, key, id } of fragments) {
      const html = pageHtml.get(key);
      if (html !== undefined && !idsOf(html).has(id)) broken.push(`${key.split('|')[0]}#${id} (linked from ${from}) names no id on that page`);
    }

    expect(targets.size).toBeGreaterThan(20);
    expect(broken).toEqual([]);
  });

  it('links the privacy notice, the terms and the imprint from the portal', async () => {
    const html = await (await fetch(`${system.baseUrl}/developers`)).text();

    for (const page of ['privacy', 'terms', 'imprint']) expect(html).toContain(`href="${system.baseUrl}/${page}"`);
  });
});

describe('the legal pages through the gateway', () => {
  for (const page of ['privacy', 'terms', 'imprint']) {
    it(`GET /${page} answers German or English HTML by Accept-Language and Markdown on Accept: text/markdown`, async () => {
      const german = await fetch(`${system.baseUrl}/${page}`, { headers: { 'accept-language': 'de-DE,de;q=0.9' } });
      const english = await fetch(`${system.baseUrl}/sandbox/${page}`, { headers: { 'accept-language': 'en-US,en;q=0.9' } });
      const markdown = await fetch(`${system.baseUrl}/${page}`, { headers: { accept: 'text/markdown', 'accept-language': 'en' } });

      expect(german.status).toBe(200);
      expect(await german.text()).toContain('<html lang="de">');
      expect(english.status).toBe(200);
      expect(await english.text()).toContain('<html lang="en">');
      expect(markdown.headers.get('content-type')).toBe('text/markdown; charset=utf-8');
      expect(await markdown.text()).toMatch(/^# (Privacy notice|Terms of use|Imprint)/);
    });
  }
});

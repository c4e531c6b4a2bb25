import { describe, expect, it } from 'vitest';
import { esc, formatFor } from './format.js';

// Intl puts a no-break space between amount and sign in de-DE.
const plain = (s: string) => s.replace(/\u00a0/g, ' ');

describe('formatting from the host context', () => {
  it('writes euros the German way for de-DE', () => {
    expect(plain(formatFor({ locale: 'de-DE' }).money(1234.5))).toBe('1.234,50 €');
  });

  it('writes euros the American way for en-US', () => {
    expect(formatFor({ locale: 'en-US' }).money(1234.5)).toBe('€1,234.50');
  });

  it('falls back to de-DE for a missing or malformed locale, never to the browser', () => {
    expect(formatFor({}).locale).toBe('de-DE');
    expect(formatFor({ locale: 'not a locale!' }).locale).toBe('de-DE');
  });

  it('speaks German for German locales and English otherwise', () => {
    expect(formatFor({ locale: 'de-AT' }).t.requestShop).toBe('Shop anfragen');
    expect(formatFor({ locale: 'fr-FR' }).t.requestShop).toBe('Request shop');
  });

  it('escapes text for elements and attributes', () => {
    expect(esc(`<img src=x onerror="a">'`)).toBe('&lt;img src=x onerror=&quot;a&quot;&gt;&#39;');
  });
});

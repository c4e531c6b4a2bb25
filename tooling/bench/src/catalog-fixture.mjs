// A catalog of any size built from the real embedded products: each copy
// keeps a product's type, tags, prices and description and adds a product
// line to title, handle, tags and description, so searches match the way
// they would in a large shop (many hits for "bio", few for "latzschürze").
import { readFileSync } from 'node:fs';

const LINES = [
  'Classic', 'Team Edition', 'Pro', 'Lite', 'Vintage', 'Stadtlauf', 'Sommerfest', 'Abschluss',
  'Gastro Line', 'Öko Plus', 'Größe Plus', 'Jubiläum', 'Vereinsfarben', 'Messe', 'Café Crew', 'Werkstatt',
];
const EXTRA_TAGS = ['neu', 'limitiert', 'sale', 'bestseller', 'regional', 'klimaneutral', 'vegan', 'premium'];

function slug(text) {
  return text
    .toLowerCase()
    .replace(/ä/g, 'ae')
    .replace(/ö/g, 'oe')
    .replace(/ü/g, 'ue')
    .replace(/ß/g, 'ss')
    .normalize('NFD')
    .replace(/\p{M}/gu, '')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');
}

const round2 = (n) => Math.round(n * 100) / 100;

export function loadEmbeddedProducts(file) {
  return JSON.parse(readFileSync(file, 'utf8'));
}

/** `count` distinct catalog entries varied from `products`. */
export function buildCatalogEntries(products, count) {
  const entries = [];
  for (let i = 0; i < count; i++) {
    const base = products[i % products.length];
    const n = Math.floor(i / products.length);
    const line = LINES[n % LINES.length];
    const factor = 1 + ((n % 7) - 3) * 0.03;
    const price = (p) => (typeof p === 'number' ? round2(p * factor) : p);
    entries.push({
      ...base,
      handle: `${base.handle}-${slug(line)}-${n}`,
      title: `${base.title} ${line} ${n}`,
      available: n % 11 !== 0,
      tags: [...(base.tags ?? []), slug(line), EXTRA_TAGS[n % EXTRA_TAGS.length]],
      blank_price_from: price(base.blank_price_from),
      printed_price_from: price(base.printed_price_from),
      quantity_prices_dtf: base.quantity_prices_dtf
        ? {
            ...base.quantity_prices_dtf,
            tiers: base.quantity_prices_dtf.tiers.map((t) => ({ ...t, brutto: price(t.brutto), netto: price(t.netto) })),
          }
        : base.quantity_prices_dtf,
      colors: base.colors ? [...base.colors.slice(n % base.colors.length), ...base.colors.slice(0, n % base.colors.length)] : base.colors,
      description: `${base.description ?? ''} Produktlinie „${line}“, Charge ${n}.`,
    });
  }
  return entries;
}

/**
 * Query strings as an agent sends them: one to three terms, umlauts typed
 * three ways, ß, hyphens, type filters, a decoration filter, pages deep into
 * the results, and terms that match nothing (the full scan).
 */
export const SEARCH_QUERIES = [
  { q: 'hoodie' },
  { q: 'bio' },
  { q: 'bio t-shirt' },
  { q: 'tshirt kinder' },
  { q: 'Schürze' },
  { q: 'schuerze gastro' },
  { q: 'schurze' },
  { q: 'mütze winter' },
  { q: 'muetze' },
  { q: 'größe plus' },
  { q: 'grosse plus hoodie' },
  { q: 'café crew' },
  { q: 'Cafe' },
  { q: 'tasche recycelt sport' },
  { q: 'workwear jacke handwerk' },
  { q: 'fair-wear damen' },
  { q: 'polo business gastro' },
  { q: 'jubiläum 42' },
  { q: 'xylophon' },
  { q: 'bio gots quarzsand' },
  { type: 't-shirt' },
  { type: 'Hoodie', q: 'kinder' },
  { type: 'schürze', decoration: 'stick' },
  { type: 'bio', q: 'unisex', offset: '200' },
  { q: 'jacke', decoration: 'stick', limit: '100' },
  { q: 'bio', limit: '250', offset: '5000' },
  { q: 'sweatshirt', offset: '50', limit: '20' },
  { decoration: 'dtf', limit: '10', offset: '9000' },
  { q: 'limitiert tasche' },
  { q: 'handtuch sauna verein' },
];

import { describe, expect, it } from 'vitest';
import type { CatalogEntry } from '../source/catalog-entry.js';
import { matchQuality, scoreMatch, searchFields, type SearchText } from './search-score.js';

function buildFields(overrides: Partial<CatalogEntry> = {}) {
  return searchFields({ handle: 'x', title: 'Produkt', type: 'Sonstiges', tags: [], description: '', ...overrides });
}

const score = (fields: SearchText, terms: string[]) => scoreMatch(fields.text, fields.ends, terms);

describe('matchQuality', () => {
  it('rates a whole word above a word start above the inside of a word', () => {
    expect(matchQuality('bio hoodie unisex', 'hoodie')).toBe(2);
    expect(matchQuality('hoodies fur alle', 'hoodie')).toBe(1);
    expect(matchQuality('kapuzenhoodie', 'hoodie')).toBe(0);
    expect(matchQuality('longsleeve', 'hoodie')).toBe(-1);
  });

  it('takes the best occurrence, with hyphens and line ends as word boundaries', () => {
    expect(matchQuality('kapuzenhoodie zip-hoodie', 'hoodie')).toBe(2);
    expect(matchQuality('bio t-shirt\ntshirt', 'tshirt')).toBe(2);
  });
});

describe('scoreMatch', () => {
  it('ranks a title match above a type, tag or description match', () => {
    const title = score(buildFields({ title: 'Hoodie' }), ['hoodie']);
    const type = score(buildFields({ type: 'Hoodie' }), ['hoodie']);
    const tag = score(buildFields({ tags: ['hoodie'] }), ['hoodie']);
    const description = score(buildFields({ description: 'Unter dem Hoodie tragen.' }), ['hoodie']);

    expect(title).toBeGreaterThan(type);
    expect(type).toBeGreaterThan(tag);
    expect(tag).toBeGreaterThan(description);
    expect(description).toBeGreaterThanOrEqual(0);
  });

  it('ranks a field before the kind of match: a prefix in the title beats a whole word in the type', () => {
    const titlePrefix = score(buildFields({ title: 'Hoodies', type: 'Pullover' }), ['hoodie']);
    const typeWord = score(buildFields({ title: 'Pullover', type: 'Hoodie' }), ['hoodie']);

    expect(titlePrefix).toBeGreaterThan(typeWord);
  });

  it('ranks a whole word above a prefix above the inside of a word in the same field', () => {
    const word = score(buildFields({ title: 'Bio Tasche' }), ['tasche']);
    const prefix = score(buildFields({ title: 'Taschenset' }), ['tasche']);
    const inner = score(buildFields({ title: 'Sporttasche' }), ['tasche']);

    expect(word).toBeGreaterThan(prefix);
    expect(prefix).toBeGreaterThan(inner);
  });

  it('adds the terms up and answers -1 when one term matches nowhere', () => {
    const fields = buildFields({ title: 'Bio Hoodie', description: 'Aus Bio-Baumwolle.' });

    expect(score(fields, ['bio', 'hoodie'])).toBe(score(fields, ['bio']) + score(fields, ['hoodie']));
    expect(score(fields, ['bio', 'tasse'])).toBe(-1);
  });

  it('scores an umlaut typed as its transliteration like the folded word', () => {
    const fields = buildFields({ title: 'Bio Latzschürze' });

    expect(score(fields, ['latzschuerze'])).toBe(score(fields, ['latzschurze']));
  });
});

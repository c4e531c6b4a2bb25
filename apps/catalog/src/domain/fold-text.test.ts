import { describe, expect, it } from 'vitest';
import { foldText, queryTerms, searchableText } from './fold-text.js';

describe('foldText', () => {
  it('lower-cases, strips accents and writes ß as ss', () => {
    expect(foldText('Schürze Café Größe ÄÖÜ')).toBe('schurze cafe grosse aou');
  });
});

describe('searchableText', () => {
  it('carries the umlaut transliteration and a hyphen-free form beside the folded text', () => {
    const text = searchableText('Bio T-Shirt Schürze');

    expect(text).toContain('bio t-shirt schurze');
    expect(text).toContain('schuerze');
    expect(text).toContain('tshirt');
  });
});

describe('queryTerms', () => {
  it('splits on any whitespace and drops empty terms', () => {
    expect(queryTerms('  Bio\tHOODIE \n kinder ')).toEqual(['bio', 'hoodie', 'kinder']);
  });

  it('answers no terms for a missing or blank query', () => {
    expect(queryTerms(undefined)).toEqual([]);
    expect(queryTerms('   ')).toEqual([]);
  });
});

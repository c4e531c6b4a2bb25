// The catalog as loaded from its source, prepared once per new content so a
// search is a scan over precomputed folded strings (no normalisation per
// request), and the wire products are built once per link base. Matches are
// ranked by relevance (search-score.ts) before paging.
import type { Product } from '@msa/contracts';
import { getOrBuild } from '@msa/service-kit';
import type { CatalogEntry } from '../source/catalog-entry.js';
import { foldText, queryTerms } from './fold-text.js';
import { toProduct } from './product-view.js';
import { MAX_TERM_SCORE, scoreMatch, searchFields } from './search-score.js';

export interface ProductFilter {
  q?: string;
  /** A product type or a tag, compared whole and folded ("t-shirt", "bio", "schürze"). */
  type?: string;
  decoration?: 'dtf' | 'stick';
  limit: number;
  offset: number;
}

export interface ProductPage {
  /** Matches before paging. */
  total: number;
  products: Product[];
}

export interface CatalogIndex {
  readonly entries: readonly CatalogEntry[];
  findProductByHandle(handle: string, base: string): Product | undefined;
  searchProducts(filter: ProductFilter, base: string): ProductPage;
  /** Every product in source order, as the wire shape for `base`. */
  allProducts(base: string): readonly Product[];
}

/** Filter values whose marks are kept per loaded catalog; the oldest goes first. */
const MAX_FILTER_MARKS = 64;

export function createCatalogIndex(entries: readonly CatalogEntry[]): CatalogIndex {
  const searchTexts = entries.map(searchFields);
  const texts = searchTexts.map((t) => t.text);
  const ends = searchTexts.map((t) => t.ends);
  const facets = entries.map((e) => new Set([e.type ?? '', ...(e.tags ?? [])].map(foldText)));
  // A mark per product for each type and decoration asked for, built on first
  // use: a filter then reads one byte per product instead of its Set or array.
  const marksOf = (cache: Map<string, Uint8Array>, value: string, has: (i: number) => boolean) =>
    getOrBuild(cache, value, MAX_FILTER_MARKS, () => {
      const marks = new Uint8Array(entries.length);
      for (let i = 0; i < entries.length; i++) if (has(i)) marks[i] = 1;
      return marks;
    });
  const typeMarks = new Map<string, Uint8Array>();
  const decorationMarks = new Map<string, Uint8Array>();
  const positions = new Map(entries.map((e, i) => [e.handle, i]));
  const vocabulary = createVocabulary(texts);
  const viewsByBase = new Map<string, Product[]>();

  function allProducts(base: string): Product[] {
    let views = viewsByBase.get(base);
    if (!views) {
      views = entries.map((e) => toProduct(e, base));
      viewsByBase.set(base, views);
    }
    return views;
  }

  return {
    entries,
    allProducts,
    findProductByHandle(handle, base) {
      const i = positions.get(handle);
      return i === undefined ? undefined : allProducts(base)[i];
    },
    searchProducts(filter, base) {
      const terms = queryTerms(filter.q);
      const type = filter.type?.trim() ? foldText(filter.type.trim()) : undefined;
      const views = allProducts(base);
      // One bucket per possible score, filled in catalog order: reading them
      // from the highest down is a stable sort in one pass, and equal scores
      // keep catalog order. Without terms every match lands in bucket 0.
      const buckets: number[][] = Array.from({ length: terms.length * MAX_TERM_SCORE + 1 }, () => []);
      const candidates = terms.length === 0 ? undefined : vocabulary.entriesWithAll(terms);
      const decoration = filter.decoration;
      const withDecoration = decoration ? marksOf(decorationMarks, decoration, (i) => entries[i]!.decoration?.includes(decoration) === true) : undefined;
      const ofType = type !== undefined ? marksOf(typeMarks, type, (i) => facets[i]!.has(type)) : undefined;
      let total = 0;
      for (let i = 0; i < entries.length; i++) {
        if (candidates && candidates[i] === 0) continue;
        if (withDecoration && withDecoration[i] === 0) continue;
        if (ofType && ofType[i] === 0) continue;
        const score = terms.length === 0 ? 0 : scoreMatch(texts[i]!, ends[i]!, terms);
        if (score < 0) continue;
        buckets[score]!.push(i);
        total++;
      }
      const page: Product[] = [];
      let skip = filter.offset;
      for (let s = buckets.length - 1; s >= 0 && page.length < filter.limit; s--) {
        const bucket = buckets[s]!;
        if (skip >= bucket.length) {
          skip -= bucket.length;
          continue;
        }
        for (let k = skip; k < bucket.length && page.length < filter.limit; k++) page.push(views[bucket[k]!]!);
        skip = 0;
      }
      return { total, products: page };
    },
  };
}

/**
 * Which products can hold a term, found without scanning their texts. A term
 * holds no whitespace, so it occurs in a text only inside one of the text's
 * whitespace-separated words: one scan over the distinct words of the whole
 * catalog (far shorter than the texts) finds the words holding it, and their
 * products are the only ones worth scoring. The score itself still reads
 * each candidate's text, so results are the same as a full scan's.
 */
function createVocabulary(texts: readonly string[]) {
  const products = new Map<string, number[]>();
  texts.forEach((text, i) => {
    for (const word of new Set(text.split(/\s+/u))) {
      if (!word) continue;
      const list = products.get(word);
      if (list) list.push(i);
      else products.set(word, [i]);
    }
  });
  const words = [...products.keys()];
  const postings = [...products.values()].map((list) => Int32Array.from(list));
  // All words in one string, one line each, so a term is found with indexOf.
  const joined = words.join('\n');
  const starts = new Int32Array(words.length);
  for (let w = 0, at = 0; w < words.length; w++) {
    starts[w] = at;
    at += words[w]!.length + 1;
  }
  /** The word whose line holds offset `at` (binary search over the line starts). */
  const wordAt = (at: number) => {
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (starts[mid]! <= at) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  };

  return {
    /** A mark per product: 1 where every term occurs in some word of its text. */
    entriesWithAll(terms: readonly string[]): Uint8Array {
      let all: Uint8Array | undefined;
      for (const term of terms) {
        const marks = new Uint8Array(texts.length);
        for (let at = joined.indexOf(term); at !== -1; ) {
          const w = wordAt(at);
          for (const i of postings[w]!) marks[i] = 1;
          // The next line: other occurrences in this word add nothing.
          at = joined.indexOf(term, starts[w]! + words[w]!.length + 1);
        }
        if (all) for (let i = 0; i < all.length; i++) all[i] = all[i]! & marks[i]!;
        else all = marks;
      }
      return all ?? new Uint8Array(texts.length).fill(1);
    },
  };
}

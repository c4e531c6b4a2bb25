// Relevance of a product to a query. An agent tends to take the first hit, so
// a product whose title names the query term must come before one whose
// description merely mentions it ("Longsleeve … unter dem Hoodie").
//
// Each term scores by the best field it occurs in (title, then type, then
// tags, then description) and, within that field, by how it occurs: as a
// whole word, as the start of a word, or inside a word (German compounds:
// "schürze" in "Bistroschürze"). The field decides first, so a title hit of
// any kind beats a whole-word type hit. A product's score is the sum over the
// terms; a term that occurs nowhere makes the product no match (AND).
import type { CatalogEntry } from '../source/catalog-entry.js';
import { searchableText } from './fold-text.js';

/** Folded, variant-carrying text per field, best field first; built once per index. */
export type SearchFields = readonly [title: string, type: string, tags: string, description: string];

const FIELD_COUNT = 4;
const QUALITIES = 3; // inside a word 0, word start 1, whole word 2
const WHOLE_WORD = 2;

/** The highest score one term can reach: a whole word in the title. */
export const MAX_TERM_SCORE = (FIELD_COUNT - 1) * QUALITIES + WHOLE_WORD;

export function searchFields(entry: CatalogEntry): SearchFields {
  return [
    searchableText(entry.title),
    searchableText(entry.type ?? ''),
    // One tag per line, so a tag's end is a word boundary.
    searchableText((entry.tags ?? []).join('\n')),
    searchableText(entry.description ?? ''),
  ];
}

const WORD_CHAR = /[\p{L}\p{N}]/u;
const isWordChar = (ch: string | undefined) => ch !== undefined && WORD_CHAR.test(ch);

/** 2 whole word, 1 word start, 0 inside a word, -1 absent; the best occurrence counts. */
export function matchQuality(text: string, term: string): number {
  let best = -1;
  for (let at = text.indexOf(term); at !== -1; at = text.indexOf(term, at + 1)) {
    if (isWordChar(text[at - 1])) {
      best = Math.max(best, 0);
      continue;
    }
    if (!isWordChar(text[at + term.length])) return WHOLE_WORD;
    best = 1;
  }
  return best;
}

/** The sum of the terms' scores, or -1 when a term occurs in no field. */
export function scoreMatch(fields: SearchFields, terms: readonly string[]): number {
  let score = 0;
  for (const term of terms) {
    let termScore = -1;
    for (let f = 0; f < FIELD_COUNT; f++) {
      const quality = matchQuality(fields[f]!, term);
      if (quality >= 0) {
        termScore = (FIELD_COUNT - 1 - f) * QUALITIES + quality;
        break;
      }
    }
    if (termScore < 0) return -1;
    score += termScore;
  }
  return score;
}

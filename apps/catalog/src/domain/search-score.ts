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

/**
 * A product's folded, variant-carrying fields in one string, best field
 * first, one line break between them (a term never holds whitespace, so it
 * never spans two fields). The first occurrence of a term therefore lies in
 * the best field holding it: one `indexOf` both rejects and ranks.
 */
export interface SearchText {
  readonly text: string;
  /** Where title, type and tags end in `text`; the description runs to the end. */
  readonly ends: readonly [title: number, type: number, tags: number];
}

const FIELD_COUNT = 4;
const QUALITIES = 3; // inside a word 0, word start 1, whole word 2
const WHOLE_WORD = 2;

/** The highest score one term can reach: a whole word in the title. */
export const MAX_TERM_SCORE = (FIELD_COUNT - 1) * QUALITIES + WHOLE_WORD;

export function searchFields(entry: CatalogEntry): SearchText {
  const fields = [
    searchableText(entry.title),
    searchableText(entry.type ?? ''),
    // One tag per line, so a tag's end is a word boundary.
    searchableText((entry.tags ?? []).join('\n')),
    searchableText(entry.description ?? ''),
  ];
  const title = fields[0]!.length;
  const type = title + 1 + fields[1]!.length;
  const tags = type + 1 + fields[2]!.length;
  return { text: fields.join('\n'), ends: [title, type, tags] };
}

const NON_ASCII_WORD_CHAR = /[\p{L}\p{N}]/u;

function isWordChar(text: string, at: number): boolean {
  if (at < 0 || at >= text.length) return false;
  const c = text.charCodeAt(at);
  if (c < 128) return (c >= 97 && c <= 122) || (c >= 48 && c <= 57) || (c >= 65 && c <= 90);
  return NON_ASCII_WORD_CHAR.test(text[at]!);
}

/**
 * 2 whole word, 1 word start, 0 inside a word, -1 absent: the best occurrence
 * of `term` that starts in `text` between `from` and `to`.
 */
export function matchQuality(text: string, term: string, from = 0, to = text.length): number {
  let best = -1;
  for (let at = text.indexOf(term, from); at !== -1 && at < to; at = text.indexOf(term, at + 1)) {
    if (isWordChar(text, at - 1)) {
      best = Math.max(best, 0);
      continue;
    }
    if (!isWordChar(text, at + term.length)) return WHOLE_WORD;
    best = 1;
  }
  return best;
}

/**
 * The sum of the terms' scores, or -1 when a term occurs in no field. Takes
 * the text apart from its ends so an index can keep the texts in a plain
 * array: most products fail the first `indexOf`, and one pointer less per
 * product measurably shortens a scan of 10,000.
 */
export function scoreMatch(text: string, ends: SearchText['ends'], terms: readonly string[]): number {
  let score = 0;
  for (const term of terms) {
    const first = text.indexOf(term);
    if (first === -1) return -1;
    let field = 0;
    while (field < ends.length && first > ends[field]!) field++;
    const quality = matchQuality(text, term, first, ends[field] ?? text.length);
    score += (FIELD_COUNT - 1 - field) * QUALITIES + quality;
  }
  return score;
}

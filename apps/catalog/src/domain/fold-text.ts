// Search compares folded text: lower case, ß as "ss", accents stripped
// ("Schürze" → "schurze", "Café" → "cafe"). German writers without an umlaut
// key type "Schuerze" instead, so an indexed text also carries its
// transliterated form (ä → ae, ö → oe, ü → ue) and, for "T-Shirt" typed as
// "tshirt", a form without hyphens.

const COMBINING_MARKS = /\p{M}/gu;

/** Lower case, ß → ss, diacritics removed. Applied to query terms and indexed text alike. */
export function foldText(text: string): string {
  return text.toLowerCase().replace(/ß/g, 'ss').normalize('NFD').replace(COMBINING_MARKS, '');
}

function transliterateUmlauts(text: string): string {
  return text.toLowerCase().replace(/ä/g, 'ae').replace(/ö/g, 'oe').replace(/ü/g, 'ue');
}

/**
 * The folded text, followed by the other spellings of just those words that
 * have one, one line each. Adding whole-text variants would triple what a
 * search scans; most words have no other spelling.
 */
export function searchableText(text: string): string {
  const folded = foldText(text);
  const extra = new Set<string>();
  for (const word of text.split(/\s+/u)) {
    const plain = foldText(word);
    for (const variant of [foldText(transliterateUmlauts(word)), plain.replace(/-/g, '')]) {
      if (variant !== plain) extra.add(variant);
    }
  }
  return extra.size === 0 ? folded : `${folded}\n${[...extra].join('\n')}`;
}

/** The whitespace-separated, folded terms of a query; empty terms dropped. */
export function queryTerms(q: string | undefined): string[] {
  if (!q) return [];
  return foldText(q).split(/\s+/u).filter((term) => term.length > 0);
}

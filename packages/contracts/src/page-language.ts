// The language of a page for people (the consent page, the legal pages):
// German or English, from an explicit `lang` choice, else the first German or
// English range of `Accept-Language` by weight; German otherwise, since the
// operator and its customers are in Germany and Austria.
import type { ConsentLanguage } from './mail-jobs.js';

export function pageLanguageOf(query: unknown, acceptLanguage: string | undefined): ConsentLanguage {
  if (query === 'de' || query === 'en') return query;
  const ranges = (acceptLanguage ?? '')
    .split(',')
    .map((part) => {
      const [tag = '', ...params] = part.trim().toLowerCase().split(';');
      const q = params.map((p) => /^q=([\d.]+)$/.exec(p.trim())?.[1]).find(Boolean);
      return { tag, q: q === undefined ? 1 : Number(q) };
    })
    .filter((r) => r.q > 0)
    .sort((a, b) => b.q - a.q);
  for (const { tag } of ranges) {
    if (tag.startsWith('de')) return 'de';
    if (tag.startsWith('en')) return 'en';
  }
  return 'de';
}

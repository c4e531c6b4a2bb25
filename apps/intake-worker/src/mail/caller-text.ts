/*
 * Caller-chosen text (a shop name, an organization's name) in an e-mail our
 * domain signs to an address the caller chose. Mail clients turn plain-text
 * URLs and addresses into links, and a line can pose as an instruction, so
 * such text is reduced before it goes into the confirmation: only letters,
 * digits, punctuation and single spaces stay, links and addresses lose what
 * makes them clickable, and the result is quoted and cut short.
 */

/** The longest caller text a confirmation quotes, in characters. */
export const CALLER_TEXT_MAX = 60;

// Dots a browser accepts between host labels (ideographic, full-width and half-width full stops).
const DOT_LOOKALIKES = /[\u3002\uff0e\uff61]/g;
// Quotation marks of any kind would end our own quotes early.
const QUOTES = /["\u00ab\u00bb\u201c-\u201f\u2039\u203a\u300c-\u300f\uff02]/gu;
// Control, format (bidi overrides, zero-width), separators: become spaces.
const INVISIBLE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Co}\p{Cs}\p{Cn}]+/gu;
// Kept: letters with their marks, digits, punctuation, spaces. Symbols (< > = + $ …) go.
const NOT_KEPT = /[^\p{L}\p{M}\p{N}\p{P}\p{Zs}]+/gu;
// `https://`, `ftp://`, and the schemes that open something without slashes.
const SCHEME = /\b(?:[a-z][a-z0-9+.-]{1,30}:\/\/+|(?:mailto|javascript|vbscript|data|file|tel|sms|callto|skype|sip|xmpp|news|irc|ftp|https?):(?=\S))/giu;
// A dot between name characters where what follows could be a domain label: two or more
// characters with a letter (`evil.example`, `www.x`), not an abbreviation's (`e.V.`).
const HOST_DOT = /(?<=[\p{L}\p{N}-])[.](?=[\p{L}\p{N}-]{2})(?=[\p{L}\p{N}-]*\p{L})/gu;
// Dotted-quad addresses.
const IPV4 = /\b(\d{1,3})[.](\d{1,3})[.](\d{1,3})[.](\d{1,3})\b/g;

/**
 * The text with nothing left that a mail client shows as a link or a
 * recipient could take for our own words: `Konto gesperrt: https://evil.example/k`
 * becomes `Konto gesperrt: evil[.]example/k`, `a@b.de` becomes `a [at] b[.]de`.
 * Umlauts and other letters stay; no line breaks, control characters or
 * direction overrides remain.
 */
export function neutraliseCallerText(value: string, max = CALLER_TEXT_MAX): string {
  let text = value.normalize('NFKC').replace(DOT_LOOKALIKES, '.');
  text = text.replace(INVISIBLE, ' ').replace(QUOTES, "'").replace(/[@\uff20\ufe6b]/g, ' [at] ');
  text = text.replace(NOT_KEPT, ' ');
  // Repeated until stable: `hthttps://tps://` must not leave a scheme behind.
  for (let before = ''; before !== text; ) {
    before = text;
    text = text.replace(SCHEME, '');
  }
  text = text.replace(IPV4, '$1[.]$2[.]$3[.]$4').replace(HOST_DOT, '[.]');
  text = text.replace(/\s+/g, ' ').trim();
  if (text.length > max) text = `${text.slice(0, max - 1).trimEnd()}…`;
  return text;
}

/** The neutralised text in German quotation marks, or a dash when nothing is left. */
export function quoteCallerText(value: string, max = CALLER_TEXT_MAX): string {
  const text = neutraliseCallerText(value, max);
  return text ? `„${text}“` : '–';
}

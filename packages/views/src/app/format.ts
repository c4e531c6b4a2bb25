// Numbers, dates and words in the host's locale. The locale comes from the
// host context only, never from the browser: the iframe's navigator says
// nothing about the person the host shows the view to.
import type { HostContext } from './bridge.js';
import { TEXT, type Lang, type Text } from './text.js';

/** Used when the host names no locale (or one Intl does not know). */
export const DEFAULT_LOCALE = 'de-DE';

export interface Format {
  locale: string;
  lang: Lang;
  t: Text;
  money(value: number): string;
  date(iso: string): string;
}

function knownLocale(locale: unknown): string {
  if (typeof locale !== 'string' || locale === '') return DEFAULT_LOCALE;
  try {
    return Intl.getCanonicalLocales(locale)[0] ?? DEFAULT_LOCALE;
  } catch {
    return DEFAULT_LOCALE;
  }
}

function knownTimeZone(timeZone: unknown): string | undefined {
  if (typeof timeZone !== 'string') return undefined;
  try {
    new Intl.DateTimeFormat('en', { timeZone });
    return timeZone;
  } catch {
    return undefined;
  }
}

export function formatFor(ctx: HostContext): Format {
  const locale = knownLocale(ctx.locale);
  const lang: Lang = locale.toLowerCase().startsWith('de') ? 'de' : 'en';
  const money = new Intl.NumberFormat(locale, { style: 'currency', currency: 'EUR' });
  const timeZone = knownTimeZone(ctx.timeZone);
  const date = new Intl.DateTimeFormat(locale, { dateStyle: 'long', ...(timeZone ? { timeZone } : {}) });
  return {
    locale,
    lang,
    t: TEXT[lang],
    money: (value) => money.format(value),
    date: (iso) => {
      const d = new Date(iso);
      return Number.isNaN(d.getTime()) ? iso : date.format(d);
    },
  };
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Text for HTML, in an element or an attribute quoted either way. */
export function esc(value: unknown): string {
  return String(value ?? '').replace(/[&<>"']/g, (c) => ESCAPES[c] ?? c);
}

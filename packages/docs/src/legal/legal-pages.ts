// The privacy notice, the terms of use and the imprint: one Markdown source
// per page and language (content/legal/<page>.<lang>.md), filled from the
// legal configuration and from the same constants the stores expire their
// keys by, so a changed lifetime changes the notice with it.
import { LIMITS, PRODUCT_NAME } from '@msa/contracts';
import { docUrls, type DocContext } from '../context.js';
import { renderHtmlPage, type PageLang } from '../html.js';
import { fillTemplate, loadSource } from '../template.js';
import type { LegalEnv, LegalInfo } from './legal-config.js';

export const LEGAL_PAGES = ['privacy', 'terms', 'imprint'] as const;
export type LegalPage = (typeof LEGAL_PAGES)[number];
export const LEGAL_LANGS = ['de', 'en'] as const satisfies readonly PageLang[];

/** Retention figures in days (or minutes, for what lives less than a day), from the constants the stores use. */
export function retentionFacts() {
  return {
    liveShopRequestDays: LIMITS.liveShopRequestRetentionDays,
    sandboxShopRequestDays: LIMITS.sandboxShopRequestRetentionDays,
    quoteDays: LIMITS.quoteLifetimeDays,
    grantDays: LIMITS.refreshTokenIdleDays,
    consentPageMinutes: LIMITS.consentInteractionSeconds / 60,
    consentCodeMinutes: LIMITS.consentCodeLifetimeSeconds / 60,
    limiterKeyDays: LIMITS.limiterKeyRetentionDays,
  };
}

/** A configured value as literal Markdown text: it may not open a link, a tag or a table cell. */
function md(text: string): string {
  return text.replace(/[\\`*_[\]<>|#!]/g, (c) => `\\${c}`);
}

const mailLink = (address: string) => `[${md(address)}](mailto:${address})`;

const WORDS = {
  en: {
    notConfigured: (names: string) =>
      `> **Not configured.** This deployment has not set its operator details (${names}); the details marked below are missing, so this page is not yet complete. Operators: see the gateway's README, "Legal pages".\n\n`,
    missing: '**(not configured)**',
    switchTo: 'Deutsche Fassung',
    represented: 'Represented by',
    contact: 'Contact',
    phone: 'Telephone',
    register: 'Register entry',
    vat: 'VAT identification number (§ 27a UStG)',
  },
  de: {
    notConfigured: (names: string) =>
      `> **Nicht konfiguriert.** Dieser Betrieb hat seine Betreiberangaben nicht gesetzt (${names}); die unten markierten Angaben fehlen, die Seite ist so noch nicht gültig. Betreiber: siehe die README des Gateways, "Legal pages".\n\n`,
    missing: '**(nicht konfiguriert)**',
    switchTo: 'English version',
    represented: 'Vertreten durch',
    contact: 'Kontakt',
    phone: 'Telefon',
    register: 'Registereintrag',
    vat: 'Umsatzsteuer-Identifikationsnummer (§ 27a UStG)',
  },
} as const;

/** Every placeholder of the legal sources, for one reader, language and configuration. */
export function legalVars(ctx: DocContext, legal: LegalInfo, lang: PageLang, page: LegalPage): Record<string, string | number> {
  const u = docUrls(ctx);
  const w = WORDS[lang];
  const value = (name: keyof LegalEnv) => {
    const v = legal[name];
    if (v === undefined) return undefined;
    return legal.unconfigured.includes(name) ? w.missing : md(v);
  };
  const mail = (name: 'LEGAL_CONTACT_EMAIL' | 'LEGAL_PRIVACY_EMAIL') => (legal.unconfigured.includes(name) ? w.missing : mailLink(legal[name]));
  const authority = legal.unconfigured.includes('LEGAL_SUPERVISORY_AUTHORITY_NAME')
    ? w.missing
    : legal.LEGAL_SUPERVISORY_AUTHORITY_URL
      ? `[${md(legal.LEGAL_SUPERVISORY_AUTHORITY_NAME)}](${legal.LEGAL_SUPERVISORY_AUTHORITY_URL})`
      : md(legal.LEGAL_SUPERVISORY_AUTHORITY_NAME);
  const lines = (entries: [string, string | undefined][]) =>
    entries
      .filter((e): e is [string, string] => e[1] !== undefined)
      .map(([label, text]) => (label ? `${label}: ${text}` : text))
      .join('  \n');
  const other: PageLang = lang === 'de' ? 'en' : 'de';
  const pageUrl = (name: LegalPage) => `${u.base}/${name}`;
  const r = retentionFacts();
  return {
    PRODUCT_NAME,
    PUBLIC_BASE_URL: u.production,
    SANDBOX_BASE_URL: u.sandbox,
    DEVELOPERS_URL: u.developers,
    VERSIONING_URL: u.versioning,
    PRIVACY_URL: pageUrl('privacy'),
    TERMS_URL: pageUrl('terms'),
    IMPRINT_URL: pageUrl('imprint'),
    ME_DATA_URL: `${u.base}/v1/me/data`,
    LEGAL_NOT_CONFIGURED: legal.unconfigured.length ? w.notConfigured(legal.unconfigured.map((n) => `\`${n}\``).join(', ')) : '',
    LEGAL_LANGUAGE_SWITCH: `[${w.switchTo}](${pageUrl(page)}?lang=${other})`,
    LEGAL_OPERATOR_NAME: value('LEGAL_OPERATOR_NAME')!,
    LEGAL_CONTROLLER: lines([
      ['', value('LEGAL_OPERATOR_NAME')],
      ['', value('LEGAL_POSTAL_ADDRESS')],
      [w.represented, value('LEGAL_REPRESENTATIVE')],
      [w.contact, mail('LEGAL_CONTACT_EMAIL')],
      [w.phone, value('LEGAL_PHONE')],
    ]),
    LEGAL_IMPRINT_EXTRA: lines([
      [w.register, value('LEGAL_REGISTER_ENTRY')],
      [w.vat, value('LEGAL_VAT_ID')],
    ]),
    LEGAL_CONTACT_EMAIL_LINK: mail('LEGAL_CONTACT_EMAIL'),
    LEGAL_PRIVACY_CONTACT: value('LEGAL_PRIVACY_CONTACT')!,
    LEGAL_PRIVACY_EMAIL_LINK: mail('LEGAL_PRIVACY_EMAIL'),
    LEGAL_SUPERVISORY_AUTHORITY: lines([
      ['', authority],
      ['', value('LEGAL_SUPERVISORY_AUTHORITY_ADDRESS')],
    ]),
    RETENTION_LIVE_DAYS: r.liveShopRequestDays,
    RETENTION_SANDBOX_DAYS: r.sandboxShopRequestDays,
    RETENTION_QUOTE_DAYS: r.quoteDays,
    RETENTION_GRANT_DAYS: r.grantDays,
    RETENTION_LIMITER_DAYS: r.limiterKeyDays,
    CONSENT_PAGE_MINUTES: r.consentPageMinutes,
    CONSENT_CODE_MINUTES: r.consentCodeMinutes,
  };
}

/** One legal page as Markdown. */
export function renderLegalMarkdown(page: LegalPage, ctx: DocContext, legal: LegalInfo, lang: PageLang): string {
  return fillTemplate(loadSource(`legal/${page}.${lang}.md`), legalVars(ctx, legal, lang, page));
}

/** One legal page as HTML, `<html lang>` set. */
export function renderLegalHtml(page: LegalPage, ctx: DocContext, legal: LegalInfo, lang: PageLang): string {
  const markdownUrl = `${docUrls(ctx).base}/${page}`;
  return renderHtmlPage(renderLegalMarkdown(page, ctx, legal, lang), { markdownUrl, lang });
}

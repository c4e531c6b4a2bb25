import { LIMITS } from '@msa/contracts';
import express from 'express';
import { describe, expect, it } from 'vitest';
import { createDocsRouter } from '../router.js';
import { LegalEnv, developmentLegalInfo, resolveLegalInfo, type LegalInfo } from './legal-config.js';
import { pageLanguageOf as legalLanguageOf } from '@msa/contracts';
import { LEGAL_PAGES, renderLegalHtml, renderLegalMarkdown, retentionFacts } from './legal-pages.js';

const BASE = 'https://api.example.org';
const production = { publicBaseUrl: BASE, sandbox: false };
const sandbox = { publicBaseUrl: BASE, sandbox: true };

const CONFIGURED = {
  LEGAL_OPERATOR_NAME: 'Merch Werk GmbH',
  LEGAL_POSTAL_ADDRESS: 'Hafenstraße 7, 20457 Hamburg, Deutschland',
  LEGAL_REPRESENTATIVE: 'Jana Beispiel',
  LEGAL_CONTACT_EMAIL: 'hallo@merch-werk.example',
  LEGAL_PHONE: '+49 40 123456',
  LEGAL_PRIVACY_CONTACT: 'Dr. Datenschutz Consulting',
  LEGAL_PRIVACY_EMAIL: 'datenschutz@merch-werk.example',
  LEGAL_SUPERVISORY_AUTHORITY_NAME: 'Der Hamburgische Beauftragte für Datenschutz und Informationsfreiheit',
  LEGAL_SUPERVISORY_AUTHORITY_ADDRESS: 'Ludwig-Erhard-Str. 22, 20459 Hamburg',
  LEGAL_SUPERVISORY_AUTHORITY_URL: 'https://datenschutz-hamburg.de/',
  LEGAL_REGISTER_ENTRY: 'Amtsgericht Hamburg, HRB 999999',
  LEGAL_VAT_ID: 'DE999999999',
};

const configured = (): LegalInfo => resolveLegalInfo(LegalEnv.parse(CONFIGURED), { production: true });

describe('the legal configuration', () => {
  it('marks every development default as such, so none passes for a real operator', () => {
    const dev = developmentLegalInfo();

    expect(dev.LEGAL_OPERATOR_NAME).toContain('(development default)');
    expect(dev.LEGAL_POSTAL_ADDRESS).toContain('(development default)');
    expect(dev.LEGAL_PRIVACY_CONTACT).toContain('(development default)');
    expect(dev.LEGAL_SUPERVISORY_AUTHORITY_NAME).toContain('(development default)');
    expect(dev.LEGAL_CONTACT_EMAIL).toMatch(/\.invalid$/);
    expect(dev.LEGAL_PRIVACY_EMAIL).toMatch(/\.invalid$/);
  });

  it('lists in production every required field left at its development default, and none outside production', () => {
    const env = LegalEnv.parse({ LEGAL_OPERATOR_NAME: 'Merch Werk GmbH' });

    const prod = resolveLegalInfo(env, { production: true });
    const dev = resolveLegalInfo(env, { production: false });

    expect(prod.unconfigured).toEqual(expect.arrayContaining(['LEGAL_POSTAL_ADDRESS', 'LEGAL_CONTACT_EMAIL', 'LEGAL_PRIVACY_EMAIL', 'LEGAL_SUPERVISORY_AUTHORITY_NAME']));
    expect(prod.unconfigured).not.toContain('LEGAL_OPERATOR_NAME');
    expect(prod.unconfigured).not.toContain('LEGAL_VAT_ID');
    expect(dev.unconfigured).toEqual([]);
    expect(configured().unconfigured).toEqual([]);
  });

  it('refuses an e-mail address that is none and a supervisory authority URL that is not https', () => {
    expect(LegalEnv.safeParse({ LEGAL_PRIVACY_EMAIL: 'not-an-address' }).success).toBe(false);
    expect(LegalEnv.safeParse({ LEGAL_SUPERVISORY_AUTHORITY_URL: 'http://example.org' }).success).toBe(false);
  });
});

describe('the legal pages', () => {
  for (const page of LEGAL_PAGES) {
    for (const lang of ['de', 'en'] as const) {
      it(`${page} (${lang}) renders for production and sandbox with no placeholder left`, () => {
        for (const ctx of [production, sandbox]) {
          const text = renderLegalMarkdown(page, ctx, configured(), lang);

          expect(text).toMatch(/^# /);
          expect(text).not.toContain('{{');
          expect(text).toContain('Merch Werk GmbH');
          expect(text).toContain(`${ctx.sandbox ? `${BASE}/sandbox` : BASE}/${page === 'privacy' ? 'terms' : 'privacy'}`);
        }
      });
    }
  }

  it('names every configured field: the imprint the operator, the privacy notice the controller, contact and authority', () => {
    for (const lang of ['de', 'en'] as const) {
      const imprint = renderLegalMarkdown('imprint', production, configured(), lang);
      const privacy = renderLegalMarkdown('privacy', production, configured(), lang);

      for (const name of ['LEGAL_OPERATOR_NAME', 'LEGAL_POSTAL_ADDRESS', 'LEGAL_REPRESENTATIVE', 'LEGAL_CONTACT_EMAIL', 'LEGAL_PHONE', 'LEGAL_PRIVACY_EMAIL', 'LEGAL_REGISTER_ENTRY', 'LEGAL_VAT_ID'] as const) {
        expect(imprint.replace(/\\/g, '')).toContain(CONFIGURED[name]);
      }
      for (const name of ['LEGAL_OPERATOR_NAME', 'LEGAL_POSTAL_ADDRESS', 'LEGAL_CONTACT_EMAIL', 'LEGAL_PRIVACY_CONTACT', 'LEGAL_PRIVACY_EMAIL', 'LEGAL_SUPERVISORY_AUTHORITY_NAME', 'LEGAL_SUPERVISORY_AUTHORITY_ADDRESS', 'LEGAL_SUPERVISORY_AUTHORITY_URL'] as const) {
        expect(privacy.replace(/\\/g, '')).toContain(CONFIGURED[name]);
      }
      expect(privacy).toContain(`](mailto:${CONFIGURED.LEGAL_PRIVACY_EMAIL})`);
    }
  });

  it('leaves out the optional fields that are unset', () => {
    const imprint = renderLegalMarkdown('imprint', production, developmentLegalInfo(), 'en');

    expect(imprint).not.toContain('VAT identification number');
    expect(imprint).not.toContain('Register entry');
    expect(imprint).not.toContain('Telephone');
  });

  it('states the retention periods in days from the constants the stores expire their keys by', () => {
    const r = retentionFacts();
    expect(r).toMatchObject({
      liveShopRequestDays: LIMITS.liveShopRequestRetentionDays,
      sandboxShopRequestDays: LIMITS.sandboxShopRequestRetentionDays,
      quoteDays: LIMITS.quoteLifetimeDays,
      grantDays: LIMITS.refreshTokenIdleDays,
      limiterKeyDays: LIMITS.limiterKeyRetentionDays,
      consentPageMinutes: LIMITS.consentInteractionSeconds / 60,
    });

    const en = renderLegalMarkdown('privacy', production, configured(), 'en');
    const de = renderLegalMarkdown('privacy', production, configured(), 'de');

    expect(en).toContain(`| ${LIMITS.liveShopRequestRetentionDays} days after they were made`);
    expect(en).toContain(`| Sandbox shop requests | ${LIMITS.sandboxShopRequestRetentionDays} days |`);
    expect(en).toContain(`| Quotes | ${LIMITS.quoteLifetimeDays} days |`);
    expect(en).toContain(`| ${LIMITS.refreshTokenIdleDays} days after their last use`);
    expect(en).toContain(`at most ${LIMITS.limiterKeyRetentionDays} days`);
    expect(de).toContain(`| ${LIMITS.liveShopRequestRetentionDays} Tage nach ihrem Eingang`);
  });

  it('names what is collected, the legal bases, the recipients, the rights, how to use them and the right to complain', () => {
    const en = renderLegalMarkdown('privacy', production, configured(), 'en');

    for (const item of ['E-mail address', 'Contact name', 'organization', 'Logos', 'IP addresses for limits']) expect(en).toContain(item);
    for (const basis of ['Art. 6(1)(b)', 'Art. 6(1)(f)']) expect(en).toContain(basis);
    for (const recipient of ['operator team', 'e-mail provider']) expect(en).toContain(recipient);
    for (const right of ['access', 'rectification', 'erasure', 'restriction of processing', 'data portability', 'object']) expect(en).toContain(right);
    expect(en).toContain(`GET ${BASE}/v1/me/data`);
    expect(en).toContain(`DELETE ${BASE}/v1/me/data`);
    expect(en).toContain('Art. 77 GDPR');
  });

  it('says prominently when production has not configured the operator, and marks each missing detail', () => {
    const unconfigured = resolveLegalInfo(LegalEnv.parse({}), { production: true });

    for (const [lang, banner, mark] of [['en', '**Not configured.**', '(not configured)'], ['de', '**Nicht konfiguriert.**', '(nicht konfiguriert)']] as const) {
      const text = renderLegalMarkdown('imprint', production, unconfigured, lang);

      expect(text.split('\n').slice(0, 3).join('\n')).toContain(banner);
      expect(text).toContain('`LEGAL_OPERATOR_NAME`');
      expect(text).toContain(mark);
      expect(text).not.toContain('Beispiel GmbH');
    }
  });

  it('writes a configured value as text, never as HTML or a link', () => {
    const legal = resolveLegalInfo(LegalEnv.parse({ ...CONFIGURED, LEGAL_OPERATOR_NAME: 'Evil <script>alert(1)</script> [x](https://evil.example)' }), { production: true });

    const html = renderLegalHtml('imprint', production, legal, 'en');

    expect(html).not.toContain('<script>');
    expect(html).toContain('Evil &lt;script&gt;alert(1)&lt;/script&gt; [x](');
  });

  it('sets <html lang> to the page language', () => {
    expect(renderLegalHtml('privacy', production, configured(), 'de')).toContain('<html lang="de">');
    expect(renderLegalHtml('privacy', production, configured(), 'en')).toContain('<html lang="en">');
  });
});

describe('legalLanguageOf', () => {
  it('takes ?lang first, then the first German or English range of Accept-Language, else German', () => {
    expect(legalLanguageOf('en', 'de-DE')).toBe('en');
    expect(legalLanguageOf(undefined, 'fr-FR,en-GB;q=0.8,de;q=0.5')).toBe('en');
    expect(legalLanguageOf(undefined, 'de-AT,en;q=0.9')).toBe('de');
    expect(legalLanguageOf(undefined, 'en;q=0.2,de;q=0.7')).toBe('de');
    expect(legalLanguageOf(undefined, 'fr')).toBe('de');
    expect(legalLanguageOf(undefined, undefined)).toBe('de');
  });
});

describe('GET /privacy, /terms, /imprint through the router', () => {
  const app = express().use(createDocsRouter({ publicBaseUrl: BASE, legal: configured() }));
  const server = app.listen(0);
  const url = (path: string) => `http://127.0.0.1:${(server.address() as { port: number }).port}${path}`;

  it('answers HTML in the language asked for, Markdown on Accept: text/markdown, and varies on both', async () => {
    const de = await fetch(url('/privacy'), { headers: { 'accept-language': 'de-DE' } });
    const en = await fetch(url('/privacy'), { headers: { 'accept-language': 'en-US' } });
    const md = await fetch(url('/imprint?lang=en'), { headers: { accept: 'text/markdown' } });

    expect(de.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(await de.text()).toContain('<html lang="de">');
    expect(de.headers.get('vary')).toBe('Accept, Accept-Language');
    expect(de.headers.get('content-language')).toBe('de');
    expect(await en.text()).toContain('# Privacy notice'.slice(2));
    expect(md.headers.get('content-type')).toBe('text/markdown; charset=utf-8');
    expect(await md.text()).toMatch(/^# Imprint/);
    server.close();
  });
});

// Who operates this deployment, for the privacy notice, the terms of use and
// the imprint: one zod schema, read from the gateway's environment. Every
// field a German operator must state has a development default that says so
// in its text; in production a field still at that default counts as not
// configured, and the pages say so at their top instead of naming a company
// that does not exist. The gateway starts either way and logs which are missing.
import { z } from '@msa/contracts';

const DEV = '(development default)';

const text = (max: number) => z.string().trim().min(1).max(max);

export const LegalEnv = z.object({
  LEGAL_OPERATOR_NAME: text(200)
    .default(`Beispiel GmbH ${DEV}`)
    .describe('The operator as the imprint and privacy notice name it (the controller under GDPR Art. 4(7)): full name or company name with its legal form'),
  LEGAL_POSTAL_ADDRESS: text(300)
    .default(`Musterstraße 1, 10115 Berlin, Deutschland ${DEV}`)
    .describe('The operator\'s postal address on one line (street, postcode, city, country); a summonable address, not a P.O. box (§ 5 DDG)'),
  LEGAL_REPRESENTATIVE: text(200)
    .optional()
    .describe('Who may represent the operator (a company\'s managing directors), for the imprint; unset: not shown'),
  LEGAL_CONTACT_EMAIL: z
    .email()
    .max(254)
    .default('contact@example.invalid')
    .describe('E-mail address of the operator for the imprint and the terms (development default contact@example.invalid)'),
  LEGAL_PHONE: text(50).optional().describe('Telephone number for the imprint (§ 5 DDG asks for a second quick way of contact besides e-mail); unset: not shown'),
  LEGAL_PRIVACY_CONTACT: text(200)
    .default(`Datenschutz, Beispiel GmbH ${DEV}`)
    .describe('The data-protection contact the privacy notice names: the data protection officer, or the person or team responsible'),
  LEGAL_PRIVACY_EMAIL: z
    .email()
    .max(254)
    .default('privacy@example.invalid')
    .describe('E-mail address for data-protection requests (access, erasure, objection), named in the privacy notice and the e-mails\' footers link (development default privacy@example.invalid)'),
  LEGAL_SUPERVISORY_AUTHORITY_NAME: text(300)
    .default(`Berliner Beauftragte für Datenschutz und Informationsfreiheit ${DEV}`)
    .describe('The data protection supervisory authority competent for the operator (that of the federal state of its seat), where a person may complain'),
  LEGAL_SUPERVISORY_AUTHORITY_ADDRESS: text(300)
    .default(`Alt-Moabit 59–61, 10555 Berlin ${DEV}`)
    .describe('The supervisory authority\'s postal address on one line'),
  LEGAL_SUPERVISORY_AUTHORITY_URL: z.url({ protocol: /^https$/ }).max(500).optional().describe('The supervisory authority\'s web site (https); unset: not shown'),
  LEGAL_REGISTER_ENTRY: text(200).optional().describe('Commercial register entry for the imprint, e.g. "Amtsgericht Charlottenburg, HRB 123456"; unset: not shown'),
  LEGAL_VAT_ID: text(30).optional().describe('VAT identification number (§ 27a UStG) for the imprint; unset: not shown'),
});
export type LegalEnv = z.infer<typeof LegalEnv>;

/** What the legal pages are rendered from: the parsed variables and which of them production left at a development default. */
export interface LegalInfo extends LegalEnv {
  /** Variable names still at their development default in production; the pages show them as not configured. */
  unconfigured: (keyof LegalEnv)[];
}

const DEFAULTS = LegalEnv.parse({});

/**
 * The legal configuration for rendering. Outside production the development
 * defaults stand; in production a field equal to its default is listed in
 * `unconfigured`, so nobody ships "Beispiel GmbH" as the controller unnoticed.
 */
export function resolveLegalInfo(env: LegalEnv, { production }: { production: boolean }): LegalInfo {
  const unconfigured = production
    ? (Object.keys(DEFAULTS) as (keyof LegalEnv)[]).filter((name) => DEFAULTS[name] !== undefined && env[name] === DEFAULTS[name])
    : [];
  // Only the legal fields: the gateway passes its whole configuration, secrets included.
  const fields = Object.fromEntries(Object.keys(LegalEnv.shape).map((name) => [name, env[name as keyof LegalEnv]])) as LegalEnv;
  return { ...fields, unconfigured };
}

/** The development configuration: what tests and a bare router render. */
export function developmentLegalInfo(): LegalInfo {
  return { ...DEFAULTS, unconfigured: [] };
}

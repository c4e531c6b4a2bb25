import { DEFAULT_DESIGN_POSITION, sameEmail, shopTypeOf, type ConfirmedSubmitter, type IntakeJob, type Quote } from '@msa/contracts';
import { getOrBuild, mailboxDomain } from '@msa/service-kit';
import type { SendMailOptions } from 'nodemailer';
import type { StoredLogo } from '../store/intake-store.js';
import type { ConfirmationDecision, RequestsToday } from './confirmation-limit.js';
import { clip, oneLine, renderHtml, renderText, type Row, type Section } from './layout.js';
import { messageIdFor, traceHeaders, type MailSettings } from './mail-settings.js';

const ORGANIZATION_TYPES: Record<string, string> = {
  schule: 'Schule',
  verein: 'Verein',
  unternehmen: 'Unternehmen',
  handwerk: 'Handwerk',
  gastro: 'Gastronomie',
};

const DECORATIONS: Record<string, string> = { dtf: 'DTF-Druck', stick: 'Stick (pausiert)', dtg: 'DTG-Druck' };

/** A client names itself; the operator e-mail quotes that name, cut to this length. */
const CLIENT_NAME_MAX = 80;

const yesNo = (value: boolean) => (value ? 'ja' : 'nein');
const orDash = (value: string | number | undefined) => (value === undefined || value === '' ? '–' : String(value));

// Built on first use, not when the module loads: a de-DE formatter maps about
// 5 MB of ICU data into a worker that may wait hours for its first request.
let dateTime: Intl.DateTimeFormat | undefined;
let euro: Intl.NumberFormat | undefined;
// Prices come from the catalog, so few distinct ones recur; Intl formatting is the costly part.
const formattedPrices = new Map<number, string>();

export function formatEuro(price: number): string {
  return getOrBuild(formattedPrices, price, 256, () => (euro ??= new Intl.NumberFormat('de-DE', { style: 'currency', currency: 'EUR' })).format(price));
}

// Formatting (Intl) is the costly part, and requests arriving together share
// their minute, the finest unit shown: the last minute's text is kept.
let lastMinute = NaN;
let lastMinuteText = '';

export function formatCreatedAt(iso: string): string {
  const time = new Date(iso).getTime();
  if (Number.isNaN(time)) return iso;
  const minute = Math.floor(time / 60_000);
  if (minute !== lastMinute) {
    dateTime ??= new Intl.DateTimeFormat('de-DE', { dateStyle: 'medium', timeStyle: 'short', timeZone: 'Europe/Berlin' });
    lastMinuteText = dateTime.format(time);
    lastMinute = minute;
  }
  return `${lastMinuteText} Uhr (${iso})`;
}

/**
 * The e-mail to the operator team: every field of the shop request in a
 * German layout, the usable logos and the request as JSON attached, and
 * Reply-To set to the contact so a reply reaches the organization.
 *
 * The subject starts with `[bestätigt]` or `[unbestätigt]`: whether a person
 * confirmed an address (the consent page) or a key alone made the request;
 * the second line says the same in words, a confirmation the daily
 * limit held back is said on the line after, and the next line says how
 * many live requests the contact's address and domain made that day (one
 * person with a catch-all domain is many confirmed addresses).
 */
export function buildOperatorMail(
  job: IntakeJob,
  logos: StoredLogo[],
  settings: MailSettings,
  marks: OperatorMarks = {},
): SendMailOptions {
  const { body, request_id: id } = job;
  const org = body.organization;
  const jsonName = `anfrage-${id}.json`;
  const sections = operatorSections(job, logos, jsonName);
  const intro = introLines(job, marks);
  return {
    from: settings.from,
    to: settings.operatorEmail,
    replyTo: { name: oneLine(org.contact_name), address: org.email },
    subject: oneLine(`${job.submitter ? '[bestätigt]' : '[unbestätigt]'} Neue Shop-Anfrage: ${body.shop_name} – ${org.name} (${id})`),
    messageId: messageIdFor(id, 'operator', settings),
    headers: { ...traceHeaders(job), 'X-Shop-Request-Id': id },
    text: renderText(intro, sections),
    html: renderHtml(`Neue Shop-Anfrage: ${body.shop_name}`, intro, sections),
    attachments: operatorAttachments(job, logos, jsonName),
  };
}

/** What the delivery decided before the e-mail: whether the confirmation goes out, and the day's counts. */
export interface OperatorMarks {
  confirmation?: ConfirmationDecision;
  requestsToday?: RequestsToday;
}

/** Every section of the body, in order: shop, organization, products, quote, warnings, logos, technical. */
function operatorSections(job: IntakeJob, logos: StoredLogo[], jsonName: string): Section[] {
  const shopType = shopTypeOf(job.body.organization.type);
  const logoByUrl = new Map(logos.map((logo) => [logo.url, logo]));
  const sections: Section[] = [
    shopSection(job.body, shopType),
    organizationSection(job.body.organization),
    ...productSections(job, shopType, logoByUrl),
    ...(job.quote ? [quoteSection(job.quote)] : []),
  ];
  if (job.result.warnings.length) {
    sections.push({ title: 'Hinweise bei der Annahme', rows: job.result.warnings.map((w) => ({ label: '', value: `– ${w}` })) });
  }
  if (logos.length) {
    sections.push({ title: 'Logos', rows: logos.map((logo, i) => ({ label: `Logo ${i + 1}`, value: logoLine(logo) })) });
  }
  sections.push(technicalSection(job, jsonName));
  return sections;
}

function shopSection(body: IntakeJob['body'], shopType: 'b2c' | 'b2b'): Section {
  return {
    title: 'Shop',
    rows: [
      { label: 'Shop-Name', value: body.shop_name },
      {
        label: 'Shop-Art',
        value: shopType === 'b2c' ? 'B2C: Mitglieder bestellen und zahlen einzeln (Bruttopreise)' : 'B2B: Firmenshop (Nettopreise, Staffelpreise)',
      },
      { label: 'Design-Service', value: yesNo(body.design_service) },
      { label: 'Sammelbestellung bis', value: orDash(body.group_order_until) },
      { label: 'Passwortschutz', value: yesNo(body.password_protection) },
      { label: 'Privater Shop (im Kundenkonto)', value: yesNo(body.private_shop) },
      { label: 'Kundenkonto anlegen', value: yesNo(body.customer_account) },
      { label: 'Anlass', value: orDash(body.occasion) },
      { label: 'Teamgröße', value: orDash(body.team_size) },
      { label: 'Anmerkungen', value: orDash(body.notes) },
    ],
  };
}

function organizationSection(org: IntakeJob['body']['organization']): Section {
  return {
    title: 'Organisation',
    rows: [
      { label: 'Name', value: org.name },
      { label: 'Art', value: `${ORGANIZATION_TYPES[org.type] ?? org.type} (${org.type})` },
      { label: 'Ansprechperson', value: org.contact_name },
      { label: 'E-Mail', value: org.email },
      { label: 'Telefon', value: orDash(org.phone) },
    ],
  };
}

function technicalSection(job: IntakeJob, jsonName: string): Section {
  return {
    title: 'Technisch',
    rows: [
      { label: 'Anfrage-ID', value: job.request_id },
      { label: 'Eingegangen', value: formatCreatedAt(job.result.created_at) },
      { label: 'API-Client', value: job.owner_id },
      ...(job.submitter
        ? [
            { label: 'Bestätigte Absender-Adresse', value: job.submitter.email },
            { label: 'OAuth-Client', value: `${clip(oneLine(job.submitter.client_name), CLIENT_NAME_MAX)} (${job.submitter.client_id})` },
          ]
        : []),
      { label: 'API-Request-ID', value: orDash(job.request_trace.request_id) },
      { label: 'Anhang', value: `${jsonName} (die Anfrage als JSON)` },
    ],
  };
}

/** The lines above the sections: who asked, whether the address is confirmed, a held confirmation, the day's counts. */
function introLines(job: IntakeJob, marks: OperatorMarks): string[] {
  const org = job.body.organization;
  return [
    `Neue Shop-Anfrage ${job.request_id} von ${oneLine(org.name)} (${oneLine(org.contact_name)}).`,
    job.submitter ? confirmedSubmitterLine(job.submitter, org.email) : UNCONFIRMED_LINE,
    ...(marks.confirmation === 'hold'
      ? [
          `Bestätigungs-E-Mail zurückgehalten: an ${oneLine(org.email)} gingen heute schon so viele Bestätigungen, wie eine Adresse am Tag bekommt. ` +
            'Die Ansprechperson weiß von dieser Anfrage nichts; bitte prüfen, ob sie echt ist, bevor Sie antworten.',
        ]
      : []),
    ...(marks.requestsToday ? [requestsTodayLine(marks.requestsToday, org.email)] : []),
    'Eine Antwort auf diese E-Mail geht an die Ansprechperson.',
  ];
}

/** The usable logos, then the request as JSON. */
function operatorAttachments(job: IntakeJob, logos: StoredLogo[], jsonName: string): NonNullable<SendMailOptions['attachments']> {
  const { request_id: id, result, body } = job;
  const attachments: NonNullable<SendMailOptions['attachments']> = logos
    .filter((logo) => logo.data && logo.filename)
    .map((logo) => ({ filename: logo.filename!, content: logo.data!, contentType: logo.contentType }));
  attachments.push({
    filename: jsonName,
    contentType: 'application/json; charset=utf-8',
    content: `${JSON.stringify({ id, owner_id: job.owner_id, ...(job.submitter ? { submitter: job.submitter } : {}), result, request: body, ...(job.quote ? { quote: job.quote } : {}) }, null, 2)}\n`,
  });
  return attachments;
}

const requestsWord = (n: number) => `${n} ${n === 1 ? 'Anfrage' : 'Anfragen'}`;

/** The day's live requests (UTC) to the contact's address and its domain, this one included. */
export function requestsTodayLine(counts: RequestsToday, contactEmail: string): string {
  return `Heute (UTC) von dieser Adresse: ${requestsWord(counts.address)}; von dieser Domain (${oneLine(mailboxDomain(contactEmail))}): ${counts.domain}.`;
}

/** A key alone made the request: nobody showed that the contact address is theirs. */
const UNCONFIRMED_LINE =
  'Absender-Adresse unbestätigt: die Anfrage kam mit einem API-Schlüssel ohne bestätigte E-Mail-Adresse; Name und Kontakt-E-Mail sind Angaben des Aufrufers.';

/**
 * The person behind the request confirmed this address with an e-mailed code
 * on the consent page and authorized this client. Replies still go to the
 * contact, so a contact address that differs is pointed out.
 */
function confirmedSubmitterLine(submitter: ConfirmedSubmitter, contactEmail: string): string {
  const line = `Absender-Adresse bestätigt: ${oneLine(submitter.email)} über Client „${clip(oneLine(submitter.client_name), CLIENT_NAME_MAX)}“ (${oneLine(submitter.client_id)}).`;
  return sameEmail(submitter.email, contactEmail)
    ? line
    : `${line} Die Kontakt-E-Mail der Anfrage (${contactEmail}) ist eine andere Adresse und nicht bestätigt.`;
}

function productSections(job: IntakeJob, shopType: 'b2c' | 'b2b', logoByUrl: Map<string, StoredLogo>): Section[] {
  const products = job.body.products ?? [];
  if (products.length === 0) {
    return [{ title: 'Produkte', rows: [{ label: '', value: 'keine: die Kollektion stellt das Design-Service-Team zusammen' }] }];
  }
  return products.map((product, i) => {
    const resolved = job.result.products[i];
    const price = resolved?.estimated_price_from;
    const rows: Row[] = [
      { label: 'Angefragt als', value: product.product },
      { label: 'Handle', value: orDash(resolved?.handle) },
      { label: 'Farben', value: product.colors?.length ? product.colors.join(', ') : '–' },
      { label: 'Veredelung', value: DECORATIONS[product.decoration] ?? product.decoration },
      {
        label: 'Geschätzt ab',
        value: price === null || price === undefined ? '–' : `${formatEuro(price)} ${shopType === 'b2c' ? 'brutto' : 'netto'} pro Stück`,
      },
      { label: 'Kommentar', value: orDash(product.comment) },
    ];
    (product.designs ?? []).forEach((design, d) => {
      rows.push(
        { label: `Design ${d + 1}`, value: '' },
        { label: 'Position', value: design.position ?? `${DEFAULT_DESIGN_POSITION} (Standard)`, depth: 1 },
        { label: 'Breite', value: design.width_cm === undefined ? '–' : `${String(design.width_cm).replace('.', ',')} cm`, depth: 1 },
        { label: 'Logo', value: design.logo_url ? designLogo(design.logo_url, logoByUrl) : '–', depth: 1 },
        { label: 'Kommentar', value: orDash(design.comment), depth: 1 },
      );
    });
    return { title: `Produkt ${i + 1}: ${resolved?.product ?? product.product}`, rows };
  });
}

/**
 * The quote the request named, as the customer saw it: every line with the
 * tier, unit and line prices, and the totals. The prices are the API's
 * answer at quoting time, not today's catalog.
 */
function quoteSection(quote: Quote): Section {
  const basis =
    quote.shop_type === 'b2c'
      ? 'B2C: Bruttopreis pro Stück (inkl. 19 % MwSt.), unabhängig von der Menge'
      : 'B2B: Nettopreis der Staffel, zzgl. 19 % MwSt.';
  const rows: Row[] = [
    { label: 'Angebots-ID', value: quote.quote_id },
    { label: 'Preisbasis', value: `${basis} (Organisationsart ${quote.organization_type})` },
  ];
  quote.lines.forEach((line, i) => {
    rows.push(
      { label: `Position ${i + 1}`, value: `${line.quantity} × ${line.product} (${line.handle}), ${DECORATIONS[line.decoration] ?? line.decoration}` },
      { label: 'Staffel', value: line.tier_from === null ? '–' : `ab ${line.tier_from} Stück`, depth: 1 },
      { label: 'Stückpreis', value: `${formatEuro(line.unit_net)} netto / ${formatEuro(line.unit_gross)} brutto`, depth: 1 },
      { label: 'Summe', value: `${formatEuro(line.total_net)} netto / ${formatEuro(line.total_gross)} brutto`, depth: 1 },
    );
  });
  rows.push(
    { label: 'Summe netto', value: formatEuro(quote.total_net) },
    { label: 'MwSt. 19 %', value: formatEuro(quote.vat) },
    { label: 'Summe brutto', value: formatEuro(quote.total_gross) },
    { label: 'Erstellt', value: formatCreatedAt(quote.created_at) },
    { label: 'Gültig bis', value: formatCreatedAt(quote.expires_at) },
    ...quote.warnings.map((w) => ({ label: 'Hinweis', value: w })),
  );
  return { title: `Angebot ${quote.quote_id}`, rows };
}

function designLogo(url: string, logoByUrl: Map<string, StoredLogo>): string {
  const logo = logoByUrl.get(url);
  if (!logo) return url;
  return logo.filename ? `${url}\nangehängt als ${logo.filename}` : `${url}\n${logo.note ?? 'nicht angehängt'}`;
}

function logoLine(logo: StoredLogo): string {
  if (logo.filename) return `${logo.filename} (${logo.contentType}, ${Math.ceil((logo.size ?? 0) / 1024)} KB) von ${logo.url}`;
  return `${logo.url}\n${logo.note ?? 'nicht angehängt'}`;
}

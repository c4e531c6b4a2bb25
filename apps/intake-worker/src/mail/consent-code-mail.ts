/*
 * The consent page's one-time code, e-mailed to the address a person typed
 * there, in the page's language (German addressed formally, "Sie", or
 * English): the code in the subject and at the top, who asks for access,
 * how long the code is valid, and that ignoring the e-mail changes nothing.
 *
 * The client's name and host come from the client (its metadata document or
 * its registration), so they are data: the name is neutralised like a
 * caller's text in the confirmation (no links, no addresses), the host is one
 * clipped line, both are escaped in HTML and never in the subject. Because
 * anyone can call a client "Claude", the e-mail says where the approval goes
 * (the redirect's host, or the app on the person's device) and marks a name
 * nobody checked as self-declared.
 */
import { PRODUCT_NAME, type ApprovalTarget, type ConsentCodeMailJob, type ConsentCodeSecret, type ConsentLanguage } from '@msa/contracts';
import type { SendMailOptions } from 'nodemailer';
import { neutraliseCallerText } from './caller-text.js';
import { clip, oneLine, privacyFooter, renderHtml, renderText, type Section } from './layout.js';
import { traceHeaders, type MailSettings } from './mail-settings.js';

/** Longer client names are cut: the e-mail names the client, it does not carry its prose. */
const CLIENT_NAME_MAX = 80;

interface Wording {
  subject(code: string): string;
  greeting: string;
  code(code: string): string;
  asks(client: string): string;
  section: string;
  client: string;
  host: string;
  selfDeclared: string;
  goesTo: string;
  target(target: ApprovalTarget): string;
  valid: string;
  minutes(n: number): string;
  ignore: string;
  keep: string;
  closing: string;
}

const WORDING: Record<ConsentLanguage, Wording> = {
  de: {
    subject: (code) => `Ihr Bestätigungscode: ${code}`,
    greeting: 'Guten Tag,',
    code: (code) => `Ihr Bestätigungscode lautet: ${code}`,
    asks: (client) =>
      `Die Anwendung ${client} möchte in Ihrem Namen auf die ${PRODUCT_NAME} zugreifen, zum Beispiel um Shop-Anfragen für Sie zu stellen. ` +
      'Mit diesem Code bestätigen Sie auf der Zustimmungsseite Ihre E-Mail-Adresse.',
    section: 'Zugriffsanfrage',
    client: 'Anwendung',
    host: 'Domain',
    selfDeclared: 'selbst angegeben, nicht geprüft',
    goesTo: 'Die Freigabe geht an',
    target: (t) =>
      t.kind === 'host' ? t.value : t.kind === 'device' ? `eine Anwendung auf Ihrem eigenen Gerät (${t.value})` : `die App, die Links mit „${t.value}:“ öffnet`,
    valid: 'Code gültig',
    minutes: (n) => `${n} ${n === 1 ? 'Minute' : 'Minuten'}`,
    ignore: 'Wenn Sie das nicht angefordert haben, können Sie diese E-Mail ignorieren: Ohne den Code erhält niemand Zugriff, und es passiert nichts.',
    keep: 'Geben Sie den Code nur auf der Zustimmungsseite ein und an niemanden weiter.',
    closing: 'Mit freundlichen Grüßen\nIhr Merch-Shop-Team',
  },
  en: {
    subject: (code) => `Your confirmation code: ${code}`,
    greeting: 'Hello,',
    code: (code) => `Your confirmation code is: ${code}`,
    asks: (client) =>
      `The application ${client} asks for access to the ${PRODUCT_NAME} on your behalf, for example to submit shop requests for you. ` +
      'Enter this code on the consent page to confirm your e-mail address.',
    section: 'Access request',
    client: 'Application',
    host: 'Domain',
    selfDeclared: 'self-declared, not verified',
    goesTo: 'The approval goes to',
    target: (t) => (t.kind === 'host' ? t.value : t.kind === 'device' ? `an app on your own device (${t.value})` : `the app that opens “${t.value}:” links`),
    valid: 'Code valid for',
    minutes: (n) => `${n} ${n === 1 ? 'minute' : 'minutes'}`,
    ignore: 'If you did not ask for this, you can ignore this e-mail: without the code nobody gets access, and nothing happens.',
    keep: 'Enter the code only on the consent page and never give it to anyone.',
    closing: 'Kind regards\nYour Merch-Shop team',
  },
};

export interface ConsentCodeMailOptions {
  /** Whole minutes the code is still valid when the e-mail is written. */
  validMinutes: number;
  messageId: string;
}

export function buildConsentCodeMail(
  job: ConsentCodeMailJob,
  secret: ConsentCodeSecret,
  settings: MailSettings,
  { validMinutes, messageId }: ConsentCodeMailOptions,
): SendMailOptions {
  const words = WORDING[job.lang];
  const name = neutraliseCallerText(job.client_name, CLIENT_NAME_MAX) || '–';
  const host = job.client_host ? clip(oneLine(job.client_host), CLIENT_NAME_MAX) : undefined;
  const quoted = job.lang === 'de' ? `„${name}“` : `“${name}”`;
  const declared = job.client_name_self_declared ? ` (${words.selfDeclared})` : '';
  const client = host ? `${quoted} (${host})${declared}` : `${quoted}${declared}`;
  const target = job.approval_target
    ? words.target({ kind: job.approval_target.kind, value: clip(oneLine(job.approval_target.value), CLIENT_NAME_MAX) })
    : undefined;

  const intro = [words.greeting, words.code(secret.code), words.asks(client), ...(target ? [`${words.goesTo}: ${target}`] : [])];
  const sections: Section[] = [
    {
      title: words.section,
      rows: [
        { label: words.client, value: `${name}${declared}` },
        ...(host ? [{ label: words.host, value: host }] : []),
        ...(target ? [{ label: words.goesTo, value: target }] : []),
        { label: words.valid, value: words.minutes(validMinutes) },
      ],
    },
  ];
  const outro = [words.ignore, words.keep, words.closing];
  const spaced = (paragraphs: string[]) => paragraphs.flatMap((p, i) => (i === 0 ? [p] : ['', p]));
  const subject = words.subject(secret.code);
  const footer = privacyFooter(settings.publicBaseUrl, job.lang);

  return {
    from: settings.from,
    to: { name: '', address: secret.to },
    subject,
    messageId,
    headers: traceHeaders(job),
    text: renderText(spaced(intro), sections, spaced(outro), footer),
    html: renderHtml(subject, intro, sections, outro, job.lang, footer),
  };
}

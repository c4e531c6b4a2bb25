import { SERVICE_FACTS, type IntakeJob } from '@msa/contracts';
import type { SendMailOptions } from 'nodemailer';
import { neutraliseCallerText, quoteCallerText } from './caller-text.js';
import { privacyFooter, renderHtml, renderText, type Section } from './layout.js';
import { messageIdFor, traceHeaders, type MailSettings } from './mail-settings.js';

/**
 * The confirmation to the contact person, in German and addressed formally
 * ("Sie"): the request arrived, the shop name, the reply promise, the id to
 * quote. Replies go to the operator team.
 *
 * It goes to an address the caller chose, signed by our domain, so nothing
 * the caller wrote reaches a header, and what reaches the body is quoted and
 * neutralised (caller-text.ts): the subject is fixed apart from the request
 * id, the recipient is the bare address, the greeting names nobody.
 */
export function buildContactMail(job: IntakeJob, settings: MailSettings): SendMailOptions {
  const { body, request_id: id } = job;
  const org = body.organization;
  const products = job.result.products.map((p) => neutraliseCallerText(p.product, 80)).filter(Boolean);
  const shopName = quoteCallerText(body.shop_name);
  const orgName = quoteCallerText(org.name);

  const intro = [
    'Guten Tag,',
    `vielen Dank für Ihre Anfrage! Wir haben Ihre Anfrage für den Merch-Shop ${shopName} (Organisation ${orgName}) erhalten.`,
    `Unser Team richtet Ihren Shop ein und meldet sich innerhalb von ${SERVICE_FACTS.replyWithinHours} Stunden bei Ihnen. ` +
      'Die Einrichtung des Shops ist kostenlos; Ihre Mitglieder bestellen und bezahlen später einzeln.',
  ];
  const sections: Section[] = [
    {
      title: 'Ihre Anfrage',
      rows: [
        { label: 'Anfrage-ID', value: id },
        { label: 'Shop-Name', value: shopName },
        { label: 'Organisation', value: orgName },
        ...(products.length ? [{ label: 'Produkte', value: products.join(', ') }] : []),
        ...(body.design_service ? [{ label: 'Design-Service', value: 'ja, wir stellen die Kollektion für Sie zusammen' }] : []),
      ],
    },
  ];
  // The confirmation is German only, as the contact person's customers are; the notice it links is too.
  const footer = privacyFooter(settings.publicBaseUrl, 'de');
  const outro = [
    'Bitte geben Sie bei Rückfragen Ihre Anfrage-ID an. Sie können einfach auf diese E-Mail antworten.',
    'Falls Sie keine Shop-Anfrage gestellt haben, können Sie diese E-Mail ignorieren.',
    'Mit freundlichen Grüßen\nIhr Merch-Shop-Team',
  ];

  return {
    from: settings.from,
    to: { name: '', address: org.email },
    replyTo: settings.operatorEmail,
    subject: `Ihre Shop-Anfrage ${id} ist eingegangen`,
    messageId: messageIdFor(id, 'confirmation', settings),
    headers: { ...traceHeaders(job), 'X-Shop-Request-Id': id },
    text: renderText(intro.flatMap((p, i) => (i === 0 ? [p] : ['', p])), sections, outro.flatMap((p, i) => (i === 0 ? [p] : ['', p])), footer),
    html: renderHtml(`Ihre Shop-Anfrage ${id}`, intro, sections, outro, 'de', footer),
  };
}

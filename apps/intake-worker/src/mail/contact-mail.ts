import { SERVICE_FACTS, type IntakeJob } from '@msa/contracts';
import type { SendMailOptions } from 'nodemailer';
import { oneLine, renderHtml, renderText, type Section } from './layout.js';
import { messageIdFor, traceHeaders, type MailSettings } from './mail-settings.js';

/**
 * The confirmation to the contact person, in German and addressed formally
 * ("Sie"): the request arrived, the shop name, the reply promise, the id to
 * quote. Replies go to the operator team.
 */
export function buildContactMail(job: IntakeJob, settings: MailSettings): SendMailOptions {
  const { body, request_id: id } = job;
  const org = body.organization;
  const products = job.result.products.map((p) => p.product);

  const intro = [
    `Guten Tag ${oneLine(org.contact_name)},`,
    `vielen Dank für Ihre Anfrage! Wir haben Ihre Anfrage für den Merch-Shop „${oneLine(body.shop_name)}“ (${oneLine(org.name)}) erhalten.`,
    `Unser Team richtet Ihren Shop ein und meldet sich innerhalb von ${SERVICE_FACTS.replyWithinHours} Stunden bei Ihnen. ` +
      'Die Einrichtung des Shops ist kostenlos; Ihre Mitglieder bestellen und bezahlen später einzeln.',
  ];
  const sections: Section[] = [
    {
      title: 'Ihre Anfrage',
      rows: [
        { label: 'Anfrage-ID', value: id },
        { label: 'Shop-Name', value: body.shop_name },
        { label: 'Organisation', value: org.name },
        ...(products.length ? [{ label: 'Produkte', value: products.join(', ') }] : []),
        ...(body.design_service ? [{ label: 'Design-Service', value: 'ja, wir stellen die Kollektion für Sie zusammen' }] : []),
      ],
    },
  ];
  const outro = [
    'Bitte geben Sie bei Rückfragen Ihre Anfrage-ID an. Sie können einfach auf diese E-Mail antworten.',
    'Mit freundlichen Grüßen\nIhr Merch-Shop-Team',
  ];

  return {
    from: settings.from,
    to: { name: oneLine(org.contact_name), address: org.email },
    replyTo: settings.operatorEmail,
    subject: oneLine(`Ihre Shop-Anfrage „${body.shop_name}“ ist eingegangen (${id})`),
    messageId: messageIdFor(id, 'confirmation', settings),
    headers: { ...traceHeaders(job), 'X-Shop-Request-Id': id },
    text: renderText(intro.flatMap((p, i) => (i === 0 ? [p] : ['', p])), sections, outro.flatMap((p, i) => (i === 0 ? [p] : ['', p]))),
    html: renderHtml(`Ihre Shop-Anfrage ${id}`, intro, sections, outro),
  };
}

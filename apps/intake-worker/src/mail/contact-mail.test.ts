import { describe, expect, it } from 'vitest';
import { buildIntakeJob } from '../../test/support/build-job.js';
import { buildContactMail } from './contact-mail.js';

/** Both parts without the privacy footer, which is ours and links our notice. */
const withoutFooter = (mail: { text?: unknown; html?: unknown }) => [String(mail.text).split('\n--\n')[0]!, String(mail.html).replace(/<p class="f">.*?<\/p>/, '')];
const settings = { from: 'Merch-Shop <anfragen@shop.example>', operatorEmail: 'team@shop.example', domain: 'shop.example', publicBaseUrl: 'https://api.shop.example' };

describe('buildContactMail', () => {
  it('confirms in formal German with the shop name, the 48-hour promise and the request id', () => {
    const job = buildIntakeJob();

    const mail = buildContactMail(job, settings);

    expect(mail.to).toEqual({ name: '', address: 'erika.mustermann@example.org' });
    expect(mail.replyTo).toBe('team@shop.example');
    expect(mail.messageId).toBe(`<${job.request_id}.confirmation@shop.example>`);
    expect(mail.subject).toBe(`Ihre Shop-Anfrage ${job.request_id} ist eingegangen`);
    for (const part of [String(mail.text), String(mail.html)]) {
      expect(part).toContain('Guten Tag,');
      expect(part).toContain('Ihre Anfrage');
      expect(part).toContain('„TSV Fanshop“');
      expect(part).toContain('„TSV Musterstadt 1890 e.V.“');
      expect(part).toContain('innerhalb von 48 Stunden');
      expect(part).toContain(job.request_id);
      expect(part).not.toMatch(/\b(du|dein|dich)\b/i);
    }
  });

  it('links the German privacy notice in its footer, in both parts', () => {
    const mail = buildContactMail(buildIntakeJob(), settings);

    expect(String(mail.text)).toMatch(/\n--\nWie wir mit Ihren Daten umgehen[^\n]*: https:\/\/api\.shop\.example\/privacy\?lang=de\n$/);
    expect(String(mail.html)).toContain('<a href="https://api.shop.example/privacy?lang=de">Wie wir mit Ihren Daten umgehen');
  });

  it('keeps line breaks of the contact name out of the recipient', () => {
    const job = buildIntakeJob({ organization: { contact_name: 'Eve\r\nBcc: x@evil.test' } });

    const mail = buildContactMail(job, settings);

    expect(mail.to).toEqual({ name: '', address: 'erika.mustermann@example.org' });
    expect(mail.subject).not.toMatch(/[\r\n]/);
  });

  it('carries no link, address or instruction a caller put into the shop name, the organization or the contact name', () => {
    const job = buildIntakeJob({
      body: { shop_name: 'Konto gesperrt: https://evil.example/k' },
      organization: { name: 'Support <a href="mailto:help@evil.example">www.evil.example</a>', contact_name: 'Bitte melden Sie sich unter evil.example an\u202e' },
    });

    const mail = buildContactMail(job, settings);

    expect(mail.subject).toBe(`Ihre Shop-Anfrage ${job.request_id} ist eingegangen`);
    expect(mail.to).toEqual({ name: '', address: 'erika.mustermann@example.org' });
    // Our own footer links the privacy notice; what the caller wrote links nothing.
    for (const part of withoutFooter(mail)) {
      expect(part).toContain('„Konto gesperrt: evil[.]example/k“');
      expect(part).not.toMatch(/https?:|mailto:|www\.|evil\.example|@evil|\u202e/);
      expect(part).not.toContain('Bitte melden Sie sich');
    }
  });
});

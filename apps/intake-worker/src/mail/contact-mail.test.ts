import { describe, expect, it } from 'vitest';
import { buildIntakeJob } from '../../test/support/build-job.js';
import { buildContactMail } from './contact-mail.js';

const settings = { from: 'Merch-Shop <anfragen@shop.example>', operatorEmail: 'team@shop.example', domain: 'shop.example' };

describe('buildContactMail', () => {
  it('confirms in formal German with the shop name, the 48-hour promise and the request id', () => {
    const job = buildIntakeJob();

    const mail = buildContactMail(job, settings);

    expect(mail.to).toEqual({ name: 'Erika Mustermann', address: 'erika.mustermann@example.org' });
    expect(mail.replyTo).toBe('team@shop.example');
    expect(mail.messageId).toBe(`<${job.request_id}.confirmation@shop.example>`);
    for (const part of [String(mail.text), String(mail.html)]) {
      expect(part).toContain('Guten Tag Erika Mustermann');
      expect(part).toContain('Ihre Anfrage');
      expect(part).toContain('TSV Fanshop');
      expect(part).toContain('innerhalb von 48 Stunden');
      expect(part).toContain(job.request_id);
      expect(part).not.toMatch(/\b(du|dein|dich)\b/i);
    }
  });

  it('keeps line breaks of the contact name out of the recipient', () => {
    const job = buildIntakeJob({ organization: { contact_name: 'Eve\r\nBcc: x@evil.test' } });

    const mail = buildContactMail(job, settings);

    expect((mail.to as { name: string }).name).toBe('Eve Bcc: x@evil.test');
    expect(mail.subject).not.toMatch(/[\r\n]/);
  });
});

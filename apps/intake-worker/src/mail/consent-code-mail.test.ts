import { describe, expect, it } from 'vitest';
import { buildConsentCodeJob } from '../../test/support/build-mail-job.js';
import { buildConsentCodeMail } from './consent-code-mail.js';

/** Both parts without the privacy footer, which is ours and links our notice. */
const withoutFooter = (mail: { text?: unknown; html?: unknown }) => [String(mail.text).split('\n--\n')[0]!, String(mail.html).replace(/<p class="f">.*?<\/p>/, '')];
const settings = { from: 'Merch-Shop <anfragen@shop.example>', operatorEmail: 'team@shop.example', domain: 'shop.example', publicBaseUrl: 'https://api.shop.example' };
const secret = { to: 'erika.mustermann@example.org', code: '482915' };
const options = { validMinutes: 10, messageId: '<mail-7-1.consent-code@shop.example>' };

describe('buildConsentCodeMail', () => {
  it('writes German, addressed formally, with the code in the subject and body, the client, its host and the validity', () => {
    const job = buildConsentCodeJob({ lang: 'de', clientName: 'Claude', clientHost: 'claude.ai' });

    const mail = buildConsentCodeMail(job, secret, settings, options);

    expect(mail.from).toBe('Merch-Shop <anfragen@shop.example>');
    expect(mail.to).toEqual({ name: '', address: 'erika.mustermann@example.org' });
    expect(mail.subject).toBe('Ihr Bestätigungscode: 482915');
    expect(mail.messageId).toBe('<mail-7-1.consent-code@shop.example>');
    for (const part of [String(mail.text), String(mail.html)]) {
      expect(part).toContain('Ihr Bestätigungscode lautet: 482915');
      expect(part).toContain('Die Anwendung „Claude“ (claude.ai) möchte in Ihrem Namen');
      expect(part).toContain('10 Minuten');
      expect(part).toContain('können Sie diese E-Mail ignorieren');
      expect(part).toContain('es passiert nichts');
      expect(part).not.toMatch(/\b(du|dein|dich|dir)\b/i);
    }
    expect(String(mail.html)).toContain('<html lang="de">');
  });

  it('writes English when the consent page was English', () => {
    const job = buildConsentCodeJob({ lang: 'en', clientName: 'Cursor', clientHost: 'cursor.com', expiresInMinutes: 1 });

    const mail = buildConsentCodeMail(job, secret, settings, { ...options, validMinutes: 1 });

    expect(mail.subject).toBe('Your confirmation code: 482915');
    for (const part of [String(mail.text), String(mail.html)]) {
      expect(part).toContain('Your confirmation code is: 482915');
      expect(part).toContain('The application “Cursor” (cursor.com) asks for access');
      expect(part).toContain('1 minute');
      expect(part).toContain('you can ignore this e-mail');
      expect(part).toContain('nothing happens');
    }
    expect(String(mail.html)).toContain('<html lang="en">');
  });

  it('links the privacy notice in the page\'s language in its footer, in both parts', () => {
    for (const lang of ['de', 'en'] as const) {
      const mail = buildConsentCodeMail(buildConsentCodeJob({ lang }), secret, settings, options);

      expect(String(mail.text)).toMatch(new RegExp(`\\n--\\n[^\\n]+: https://api\\.shop\\.example/privacy\\?lang=${lang}\\n$`));
      expect(String(mail.html)).toContain(`<p class="f"><a href="https://api.shop.example/privacy?lang=${lang}">`);
    }
  });

  it('names a client without a host by its name alone', () => {
    const job = buildConsentCodeJob({ clientName: 'Mein Agent', clientHost: null });

    const mail = buildConsentCodeMail(job, secret, settings, options);

    expect(String(mail.text)).toContain('Die Anwendung „Mein Agent“ möchte');
    expect(String(mail.text)).not.toContain('Domain');
  });

  it('keeps the client name to one neutralised, clipped line and out of the subject', () => {
    const job = buildConsentCodeJob({ clientName: `<b>Evil</b>\r\nBcc: x@evil.test ${'x'.repeat(200)}` });

    const mail = buildConsentCodeMail(job, secret, settings, options);

    expect(mail.subject).toBe('Ihr Bestätigungscode: 482915');
    expect(String(mail.html)).not.toContain('<b>Evil');
    expect(String(mail.text)).toContain('b Evil /b Bcc: x [at] evil[.]test xxx');
    expect(String(mail.text)).not.toContain('x@evil.test');
    expect(String(mail.text)).not.toContain('x'.repeat(100));
    expect(String(mail.text)).toContain('…');
  });

  it('neutralises a URL in the client name, so no link sits beside a genuine code', () => {
    const job = buildConsentCodeJob({ clientName: 'Claude – Konto prüfen: https://evil.example/login', clientHost: null });

    const mail = buildConsentCodeMail(job, secret, settings, options);

    // Our own footer links the privacy notice; what the caller wrote links nothing.
    for (const part of withoutFooter(mail)) {
      expect(part).toContain('„Claude – Konto prüfen: evil[.]example/login“');
      expect(part).not.toContain('https://');
      expect(part).not.toContain('evil.example');
    }
  });

  it.each([
    ['de', { kind: 'host', value: 'evil.example' }, 'Die Freigabe geht an: evil.example', '„Claude“ (selbst angegeben, nicht geprüft)'],
    ['en', { kind: 'host', value: 'evil.example' }, 'The approval goes to: evil.example', '“Claude” (self-declared, not verified)'],
    ['de', { kind: 'device', value: '127.0.0.1' }, 'Die Freigabe geht an: eine Anwendung auf Ihrem eigenen Gerät (127.0.0.1)', '„Claude“ (selbst angegeben, nicht geprüft)'],
    ['en', { kind: 'scheme', value: 'com.example.app' }, 'The approval goes to: the app that opens “com.example.app:” links', '“Claude” (self-declared, not verified)'],
  ] as const)('in %s names where the approval goes and marks a self-declared name (%o)', (lang, approvalTarget, goesTo, name) => {
    const job = buildConsentCodeJob({ lang, clientName: 'Claude', clientHost: null, approvalTarget, selfDeclared: true });

    const mail = buildConsentCodeMail(job, secret, settings, options);

    for (const part of [String(mail.text), String(mail.html)]) {
      expect(part).toContain(goesTo);
      expect(part).toContain(name);
    }
  });

  it('reads a job of an earlier producer, without approval target or self-declared mark', () => {
    const job = buildConsentCodeJob({ clientName: 'Claude', clientHost: 'claude.ai' });

    const mail = buildConsentCodeMail(job, secret, settings, options);

    expect(String(mail.text)).toContain('Die Anwendung „Claude“ (claude.ai) möchte');
    expect(String(mail.text)).not.toContain('Freigabe geht an');
    expect(String(mail.text)).not.toContain('selbst angegeben');
  });

  it('carries the API request id of the consent page as a header', () => {
    const job = buildConsentCodeJob({ trace: { request_id: 'api-42' } });

    const mail = buildConsentCodeMail(job, secret, settings, options);

    expect(mail.headers).toEqual({ 'X-Request-Id': 'api-42' });
  });
});

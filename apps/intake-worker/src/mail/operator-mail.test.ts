import { describe, expect, it } from 'vitest';
import { buildIntakeJob, buildQuote } from '../../test/support/build-job.js';
import { buildOperatorMail, formatCreatedAt, formatEuro } from './operator-mail.js';

const settings = { from: 'Merch-Shop <anfragen@shop.example>', operatorEmail: 'team@shop.example', domain: 'shop.example', publicBaseUrl: 'https://api.shop.example' };
const png = { url: 'https://cdn.example/wappen.png', filename: 'logo-1-wappen.png', contentType: 'image/png', size: 2048, data: Buffer.from('png') };
const refused = { url: 'https://cdn.example/huge.png', note: 'nicht angehängt: Datei größer als 4 MB' };

describe('buildOperatorMail', () => {
  it('lists every field of the request in both parts', () => {
    const job = buildIntakeJob({ logoUrls: [png.url, refused.url], warnings: ['Farbe Pink gibt es nicht.'] });

    const mail = buildOperatorMail(job, [png, refused], settings);

    for (const part of [String(mail.text), String(mail.html)]) {
      for (const value of [
        job.request_id,
        'TSV Fanshop',
        'TSV Musterstadt 1890 e.V.',
        'Erika Mustermann',
        'erika.mustermann@example.org',
        '+49 30 1234567',
        'Saisonstart',
        '2030-03-01',
        'Kindergrößen',
        'hoodie-classic',
        'tshirt-basic',
        'Schwarz, Navy',
        'Brust links',
        'Farbe Pink gibt es nicht.',
        'angehängt als logo-1-wappen.png',
        'nicht angehängt: Datei größer als 4 MB',
        'msa_client_0123456789abcdef',
        `anfrage-${job.request_id}.json`,
      ]) {
        expect(part).toContain(value);
      }
    }
  });

  it('attaches the usable logos and the request as JSON', () => {
    const job = buildIntakeJob({ logoUrls: [png.url, refused.url] });

    const mail = buildOperatorMail(job, [png, refused], settings);

    const names = (mail.attachments ?? []).map((a) => a.filename);
    expect(names).toEqual(['logo-1-wappen.png', `anfrage-${job.request_id}.json`]);
    const json = JSON.parse(String(mail.attachments?.[1]?.content));
    expect(json).toMatchObject({ id: job.request_id, request: { shop_name: 'TSV Fanshop' }, result: { id: job.request_id } });
  });

  it('sets Reply-To to the contact and a Message-ID derived from the request id', () => {
    const job = buildIntakeJob();

    const first = buildOperatorMail(job, [], settings);
    const second = buildOperatorMail(job, [], settings);

    expect(first.replyTo).toEqual({ name: 'Erika Mustermann', address: 'erika.mustermann@example.org' });
    expect(first.messageId).toBe(`<${job.request_id}.operator@shop.example>`);
    expect(second.messageId).toBe(first.messageId);
  });

  it('carries the API request id and traceparent as headers', () => {
    const job = buildIntakeJob({ trace: { request_id: 'abc-123', traceparent: '00-0123456789abcdef0123456789abcdef-0123456789abcdef-01' } });

    const mail = buildOperatorMail(job, [], settings);

    expect(mail.headers).toMatchObject({ 'X-Request-Id': 'abc-123', traceparent: '00-0123456789abcdef0123456789abcdef-0123456789abcdef-01' });
  });

  it('leaves out trace values that do not have their well-known shape', () => {
    const job = buildIntakeJob({ trace: { request_id: 'abc\r\nBcc: x@evil.test', traceparent: 'nonsense' } });

    const mail = buildOperatorMail(job, [], settings);

    expect(mail.headers).not.toHaveProperty('X-Request-Id');
    expect(mail.headers).not.toHaveProperty('traceparent');
  });

  it('keeps line breaks of names out of the subject and display names', () => {
    const job = buildIntakeJob({
      organization: { name: 'Evil\r\nBcc: x@evil.test', contact_name: 'Eve\r\nBcc: x@evil.test' },
      body: { shop_name: 'Shop\nX-Injected: 1' },
    });

    const mail = buildOperatorMail(job, [], settings);

    expect(mail.subject).not.toMatch(/[\r\n]/);
    expect(mail.subject).toContain('Evil Bcc: x@evil.test');
    expect((mail.replyTo as { name: string }).name).toBe('Eve Bcc: x@evil.test');
  });

  it('keeps right-to-left overrides and C1 controls of names out of the subject and display names', () => {
    const job = buildIntakeJob({ organization: { name: 'Rechnung\u202egnp.exe', contact_name: 'Eve\u2066\u0085x' } });

    const mail = buildOperatorMail(job, [], settings);

    expect(mail.subject).toContain('Rechnung gnp.exe');
    expect((mail.replyTo as { name: string }).name).toBe('Eve x');
  });

  it('escapes values in the HTML part', () => {
    const job = buildIntakeJob({ body: { notes: '<script>alert("x")</script> & more' } });

    const mail = buildOperatorMail(job, [], settings);

    expect(String(mail.html)).toContain('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; more');
    expect(String(mail.html)).not.toContain('<script>');
  });

  it('says so when the operator is to design the collection', () => {
    const job = buildIntakeJob({ body: { products: [], design_service: true } });

    const mail = buildOperatorMail(job, [], settings);

    expect(String(mail.text)).toContain('Design-Service: ja');
    expect(String(mail.text)).toContain('die Kollektion stellt das Design-Service-Team zusammen');
  });
});

describe('buildOperatorMail with a confirmed submitter', () => {
  const submitter = { email: 'erika.mustermann@example.org', client_id: 'https://agent.example/client.json', client_name: 'Agent Desktop' };

  it('says near the top that the submitter confirmed the address on the consent page, and through which client', () => {
    const job = buildIntakeJob({ submitter });

    const mail = buildOperatorMail(job, [], settings);

    const line = 'Absender-Adresse bestätigt: erika.mustermann@example.org über Client „Agent Desktop“ (https://agent.example/client.json).';
    const text = String(mail.text).split('\n');
    expect(text.slice(0, 2)).toEqual([expect.stringContaining(job.request_id), line]);
    expect(String(mail.html).indexOf(line)).toBeLessThan(String(mail.html).indexOf('<h3>'));
    expect(String(mail.text)).toContain('Bestätigte Absender-Adresse: erika.mustermann@example.org');
    expect(String(mail.text)).toContain('OAuth-Client: Agent Desktop (https://agent.example/client.json)');
    expect(JSON.parse(String(mail.attachments?.at(-1)?.content))).toMatchObject({ submitter });
  });

  it('points out a contact address that differs from the confirmed one', () => {
    const job = buildIntakeJob({ submitter: { ...submitter, email: 'eva@agent-user.example' } });

    const mail = buildOperatorMail(job, [], settings);

    expect(String(mail.text)).toContain(
      'Absender-Adresse bestätigt: eva@agent-user.example über Client „Agent Desktop“ (https://agent.example/client.json). Die Kontakt-E-Mail der Anfrage (erika.mustermann@example.org) ist eine andere Adresse und nicht bestätigt.',
    );
  });

  it('takes a confirmed address spelled in other case as the contact address', () => {
    const job = buildIntakeJob({ submitter: { ...submitter, email: 'Erika.Mustermann@Example.ORG' } });

    const mail = buildOperatorMail(job, [], settings);

    expect(String(mail.text)).toContain('Absender-Adresse bestätigt: Erika.Mustermann@Example.ORG über Client „Agent Desktop“ (https://agent.example/client.json).\n');
    expect(String(mail.text)).not.toContain('ist eine andere Adresse');
  });

  it('keeps a client name to one clipped line', () => {
    const job = buildIntakeJob({ submitter: { ...submitter, client_name: `Agent\r\nBcc: x@evil.test ${'y'.repeat(200)}` } });

    const mail = buildOperatorMail(job, [], settings);

    expect(String(mail.text).split('\n')[1]).toMatch(/^Absender-Adresse bestätigt: .* über Client „Agent Bcc: x@evil\.test y+…“ \(/);
    expect(String(mail.text)).not.toContain('y'.repeat(100));
  });

  it('marks a request a key alone made as unconfirmed, in the subject and on the second line', () => {
    const job = buildIntakeJob();

    const mail = buildOperatorMail(job, [], settings);

    expect(mail.subject).toMatch(/^\[unbestätigt\] Neue Shop-Anfrage: /);
    expect(String(mail.text).split('\n')[1]).toMatch(/^Absender-Adresse unbestätigt: /);
    expect(String(mail.text)).not.toContain('Absender-Adresse bestätigt');
    expect(String(mail.text)).not.toContain('OAuth-Client');
    expect(JSON.parse(String(mail.attachments?.at(-1)?.content))).not.toHaveProperty('submitter');
  });

  it('marks a request with a confirmed submitter as confirmed in the subject', () => {
    const mail = buildOperatorMail(buildIntakeJob({ submitter }), [], settings);

    expect(mail.subject).toMatch(/^\[bestätigt\] Neue Shop-Anfrage: /);
  });
});

describe('buildOperatorMail with the confirmation held back', () => {
  it('tells the operator on the third line that the contact got no confirmation', () => {
    const job = buildIntakeJob();

    const held = String(buildOperatorMail(job, [], settings, { confirmation: 'hold' }).text).split('\n');
    const sent = String(buildOperatorMail(job, [], settings, { confirmation: 'send' }).text);

    expect(held[2]).toMatch(/^Bestätigungs-E-Mail zurückgehalten: an erika\.mustermann@example\.org gingen heute schon /);
    expect(sent).not.toContain('zurückgehalten');
  });
});

describe('formatCreatedAt', () => {
  it('shows the Berlin minute of each instant, also for instants following each other within and across minutes', () => {
    const formatted = ['2030-01-15T09:30:00.000Z', '2030-01-15T09:30:59.999Z', '2030-01-15T09:31:00.000Z', '2030-07-15T09:31:00.000Z'].map(formatCreatedAt);

    expect(formatted).toEqual([
      '15.01.2030, 10:30 Uhr (2030-01-15T09:30:00.000Z)',
      '15.01.2030, 10:30 Uhr (2030-01-15T09:30:59.999Z)',
      '15.01.2030, 10:31 Uhr (2030-01-15T09:31:00.000Z)',
      '15.07.2030, 11:31 Uhr (2030-07-15T09:31:00.000Z)',
    ]);
  });

  it('keeps a value that is not a date as it is', () => {
    expect(formatCreatedAt('gestern')).toBe('gestern');
  });
});

describe('formatEuro', () => {
  it('writes each price in German notation, also when it was formatted before', () => {
    const formatted = [34.9, 1234.5, 34.9, 0].map(formatEuro);

    expect(formatted.map((text) => text.replace(/\u00a0/g, ' '))).toEqual(['34,90 €', '1.234,50 €', '34,90 €', '0,00 €']);
  });
});

describe('buildOperatorMail with a quote', () => {
  it('shows the quote\'s lines, tiers, unit and line prices, totals and warnings in both parts', () => {
    const job = buildIntakeJob({ quote: buildQuote(), organization: { type: 'unternehmen', name: 'Muster GmbH' } });

    const mail = buildOperatorMail(job, [], settings);

    for (const part of [String(mail.text), String(mail.html)]) {
      for (const value of [
        'Angebot quo_5e0c2a9b7d1f4e38',
        'B2B: Nettopreis der Staffel, zzgl. 19 % MwSt.',
        '40 × Bio Poloshirt Herren (bio-polo-herren), DTF-Druck',
        'ab 25 Stück',
        `${formatEuro(21.76)} netto / ${formatEuro(25.9)} brutto`,
        `${formatEuro(870.4)} netto / ${formatEuro(1035.78)} brutto`,
        '10 × Baseball Cap Bio-Baumwolle (baseball-cap-bio), Stick (pausiert)',
        formatEuro(1012.4),
        formatEuro(192.36),
        formatEuro(1204.76),
        'embroidery (stick) is paused',
      ]) {
        expect(part).toContain(value);
      }
    }
    expect(String(mail.text)).toMatch(/Summe netto: 1\.012,40\s€\nMwSt\. 19 %: 192,36\s€\nSumme brutto: 1\.204,76\s€/);
    const json = JSON.parse(String(mail.attachments?.at(-1)?.content));
    expect(json.quote).toEqual(buildQuote());
  });

  it('has no quote section for a request that named none', () => {
    const mail = buildOperatorMail(buildIntakeJob(), [], settings);

    expect(String(mail.text)).not.toContain('Angebot');
    expect(JSON.parse(String(mail.attachments?.at(-1)?.content))).not.toHaveProperty('quote');
  });
});

describe('buildOperatorMail with the day\'s requests from the contact', () => {
  it('says how many live requests the address and its domain made today, after the confirmation line', () => {
    const job = buildIntakeJob({ organization: { email: 'Erika+shop7@Example.org' } });

    const mail = buildOperatorMail(job, [], settings, { confirmation: 'hold', requestsToday: { address: 3, domain: 7 } });

    const lines = String(mail.text).split('\n');
    expect(lines[2]).toMatch(/^Bestätigungs-E-Mail zurückgehalten: /);
    expect(lines[3]).toBe('Heute (UTC) von dieser Adresse: 3 Anfragen; von dieser Domain (example.org): 7.');
    expect(String(mail.html)).toContain('<p>Heute (UTC) von dieser Adresse: 3 Anfragen; von dieser Domain (example.org): 7.</p>');
  });

  it('writes one request in the singular', () => {
    const mail = buildOperatorMail(buildIntakeJob(), [], settings, { requestsToday: { address: 1, domain: 1 } });

    expect(String(mail.text).split('\n')[2]).toBe('Heute (UTC) von dieser Adresse: 1 Anfrage; von dieser Domain (example.org): 1.');
  });

  it('leaves the line out when the counts are not known (a record of an earlier version)', () => {
    const mail = buildOperatorMail(buildIntakeJob(), [], settings);

    expect(String(mail.text)).not.toContain('Heute (UTC)');
  });
});

import { createTestRedis, type SmtpSink, startSmtpSink, type TestRedis } from '@msa/test-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildIntakeJob, buildQuote } from './support/build-job.js';
import { PNG_1X1, sendBytes, startLogoServer, type LogoServer } from './support/logo-server.js';
import { startTestWorker, waitUntil, type TestWorker } from './support/worker.js';

const OPERATOR = 'team@shop.example';

let testRedis: TestRedis;
let smtp: SmtpSink;
let logos: LogoServer;
let worker: TestWorker;

beforeAll(async () => {
  testRedis = await createTestRedis('intake-delivery');
  smtp = await startSmtpSink();
  logos = await startLogoServer({ '/wappen.png': sendBytes(PNG_1X1) });
  worker = await startTestWorker(testRedis, { SMTP_URL: smtp.url });
});

afterAll(async () => {
  await worker?.close();
  await smtp?.close();
  await logos?.close();
  await testRedis?.cleanup();
});

async function listEntries(): Promise<Record<string, string>[]> {
  const entries = await testRedis.redis.xrange(`${testRedis.prefix}intake:list`, '-', '+');
  return entries.map(([, values]) => Object.fromEntries(values.flatMap((v, i, all) => (i % 2 ? [] : [[v, all[i + 1]!]]))));
}

describe('intake worker delivering a live shop request', () => {
  it('sends one operator e-mail with logo, JSON and Reply-To, one confirmation and writes one list entry', async () => {
    const job = buildIntakeJob({
      logoUrls: [logos.url('/wappen.png')],
      trace: { request_id: 'api-req-1', traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01' },
    });

    await worker.add(job);
    await worker.waitForState(job.request_id, 'completed');

    const operator = smtp.to(OPERATOR);
    const contact = smtp.to('erika.mustermann@example.org');
    expect(operator).toHaveLength(1);
    expect(contact).toHaveLength(1);
    const mail = operator[0]!.parsed;
    expect(mail.replyTo?.value).toEqual([{ name: 'Erika Mustermann', address: 'erika.mustermann@example.org' }]);
    expect(mail.messageId).toBe(`<${job.request_id}.operator@shop.example>`);
    expect(mail.headers.get('x-request-id')).toBe('api-req-1');
    expect(mail.headers.get('traceparent')).toBe('00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01');
    expect(mail.subject).toContain('TSV Fanshop');
    expect(mail.text).toContain(job.request_id);
    const png = mail.attachments.find((a) => a.contentType === 'image/png');
    expect(png?.filename).toBe('logo-1-wappen.png');
    expect(png?.content.equals(PNG_1X1)).toBe(true);
    const json = mail.attachments.find((a) => a.filename === `anfrage-${job.request_id}.json`);
    expect(JSON.parse(json!.content.toString('utf8'))).toMatchObject({ id: job.request_id, request: { shop_name: 'TSV Fanshop' } });
    const confirmation = contact[0]!.parsed;
    expect(confirmation.subject).toBe(`Ihre Shop-Anfrage ${job.request_id} ist eingegangen`);
    expect([confirmation.to].flat()[0]?.value).toEqual([{ name: '', address: 'erika.mustermann@example.org' }]);
    expect(confirmation.text).toContain('„TSV Fanshop“');
    expect(confirmation.text).toContain('48 Stunden');
    expect(confirmation.text).toContain(job.request_id);

    const entries = (await listEntries()).filter((e) => e.request_id === job.request_id);
    expect(entries).toEqual([
      expect.objectContaining({
        request_id: job.request_id,
        created_at: job.result.created_at,
        organization: 'TSV Musterstadt 1890 e.V.',
        organization_type: 'verein',
        shop_type: 'b2c',
        shop_name: 'TSV Fanshop',
        contact_name: 'Erika Mustermann',
        contact_email: 'erika.mustermann@example.org',
        products: 'hoodie-classic, tshirt-basic',
        logo_notes: '',
        submitter_status: 'unconfirmed',
        confirmation_mail: 'sent',
      }),
    ]);
    expect(Object.keys(entries[0]!).filter((k) => k.startsWith('submitter_') || k.startsWith('quote'))).toEqual(['submitter_status']);
    expect(mail.text).not.toContain('Absender-Adresse bestätigt');
  });

  it('tells the operator near the top that the submitter confirmed the address, and through which client, and lists it', async () => {
    const submitter = { email: 'erika.mustermann@example.org', client_id: 'https://agent.example/client.json', client_name: 'Agent Desktop' };
    const job = buildIntakeJob({ submitter });

    await worker.add(job);
    await worker.waitForState(job.request_id, 'completed');

    const operator = smtp.to(OPERATOR).find((m) => m.parsed.messageId === `<${job.request_id}.operator@shop.example>`);
    const lines = operator!.parsed.text!.split('\n');
    expect(operator!.parsed.subject).toMatch(/^\[bestätigt\] /);
    expect(lines[1]).toBe('Absender-Adresse bestätigt: erika.mustermann@example.org über Client „Agent Desktop“ (https://agent.example/client.json).');
    expect(operator!.parsed.html).toContain('Absender-Adresse bestätigt: erika.mustermann@example.org über Client „Agent Desktop“');
    const entries = (await listEntries()).filter((e) => e.request_id === job.request_id);
    expect(entries).toEqual([
      expect.objectContaining({
        submitter_confirmed_email: 'erika.mustermann@example.org',
        submitter_client_id: 'https://agent.example/client.json',
        submitter_client_name: 'Agent Desktop',
        submitter_status: 'confirmed',
      }),
    ]);
  });

  it('shows the quote the request named in the operator e-mail, and its lines and totals in the list entry', async () => {
    const quote = buildQuote();
    const job = buildIntakeJob({ quote, organization: { name: 'Muster GmbH', type: 'unternehmen' } });

    await worker.add(job);
    await worker.waitForState(job.request_id, 'completed');

    const operator = smtp.to(OPERATOR).find((m) => m.parsed.messageId === `<${job.request_id}.operator@shop.example>`)!;
    const text = operator.parsed.text!;
    expect(text).toContain('Angebot quo_5e0c2a9b7d1f4e38');
    expect(text).toContain('Position 1: 40 × Bio Poloshirt Herren (bio-polo-herren), DTF-Druck');
    expect(text).toMatch(/Stückpreis: 21,76\s€ netto \/ 25,90\s€ brutto/);
    expect(text).toMatch(/Summe: 870,40\s€ netto \/ 1\.035,78\s€ brutto/);
    expect(text).toMatch(/Summe netto: 1\.012,40\s€\nMwSt\. 19 %: 192,36\s€\nSumme brutto: 1\.204,76\s€/);
    expect(operator.parsed.html).toContain('Angebot quo_5e0c2a9b7d1f4e38');
    const json = operator.parsed.attachments.find((a) => a.filename === `anfrage-${job.request_id}.json`)!;
    expect(JSON.parse(json.content.toString('utf8')).quote).toEqual(quote);
    const entries = (await listEntries()).filter((e) => e.request_id === job.request_id);
    expect(entries).toEqual([
      expect.objectContaining({
        quote_id: 'quo_5e0c2a9b7d1f4e38',
        quote_basis: 'net',
        quote_lines:
          '40 x bio-polo-herren (dtf, tier 25): 21.76/25.90 each, 870.40 net / 1035.78 gross | ' +
          '10 x baseball-cap-bio (stick, tier 10): 14.20/16.90 each, 142.00 net / 168.98 gross',
        quote_total_net: '1012.40',
        quote_vat: '192.36',
        quote_total_gross: '1204.76',
        quote_expires_at: '2030-02-13T16:00:00.000Z',
      }),
    ]);
  });

  it('keeps a name with a line break and a Bcc header as data, never as a header', async () => {
    const job = buildIntakeJob({
      organization: { name: 'Evil Corp\r\nBcc: x@evil.test', contact_name: 'Eve\r\nBcc: x@evil.test', email: 'eve@example.org' },
      body: { shop_name: 'Shop\r\nBcc: x@evil.test' },
    });

    await worker.add(job);
    await worker.waitForState(job.request_id, 'completed');

    const mails = smtp.messages.filter((m) => m.parsed.messageId?.startsWith(`<${job.request_id}.`));
    expect(mails).toHaveLength(2);
    for (const mail of mails) {
      expect(mail.rcptTo).not.toContain('x@evil.test');
      expect(mail.parsed.bcc).toBeUndefined();
      expect(mail.parsed.headers.has('bcc')).toBe(false);
      const headerBlock = mail.raw.toString('utf8').split(/\r?\n\r?\n/)[0]!;
      expect(headerBlock).not.toMatch(/^Bcc:/im);
    }
    const operator = mails.find((m) => m.rcptTo.includes(OPERATOR))!;
    expect(operator.parsed.replyTo?.value).toEqual([{ name: 'Eve Bcc: x@evil.test', address: 'eve@example.org' }]);
    expect(operator.parsed.subject).toContain('Evil Corp Bcc: x@evil.test');
    expect(operator.parsed.text).toContain('Bcc: x@evil.test');
  });

  it('delivers a request queued again after delivery only once', async () => {
    const job = buildIntakeJob();
    await worker.add(job);
    await worker.waitForState(job.request_id, 'completed');
    await worker.queue.remove(job.request_id);

    await worker.add(job);
    await worker.waitForState(job.request_id, 'completed');

    const mails = smtp.messages.filter((m) => m.parsed.messageId?.startsWith(`<${job.request_id}.`));
    expect(mails).toHaveLength(2);
    expect((await listEntries()).filter((e) => e.request_id === job.request_id)).toHaveLength(1);
  });

  it('fails a job whose payload is not a shop request without retrying it', async () => {
    const jobId = 'req_00000000000000ff';

    await worker.add({ request_id: jobId, body: { shop_name: 42 } }, { jobId, attempts: 5, backoff: { type: 'fixed', delay: 10 } });
    await worker.waitForState(jobId, 'failed');

    const job = await worker.queue.getJob(jobId);
    expect(job?.attemptsMade).toBe(1);
    expect(job?.failedReason).toMatch(/^invalid intake payload/);
    expect(smtp.messages.some((m) => m.parsed.messageId?.includes(jobId))).toBe(false);
    await waitUntil(() => worker.logs.some((l) => l.msg?.toString().includes('failed for good')), 'the error log line');
    const line = worker.logs.find((l) => l.level === 'error' && l.jobId === jobId);
    expect(line).toMatchObject({ attempts: 1, maxAttempts: 5 });
  });
});

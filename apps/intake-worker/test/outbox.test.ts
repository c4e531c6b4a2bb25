import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createTestRedis, type TestRedis } from '@msa/test-kit';
import { simpleParser } from 'mailparser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildIntakeJob } from './support/build-job.js';
import { startTestWorker, type TestWorker } from './support/worker.js';

let testRedis: TestRedis;
let outbox: string;
let worker: TestWorker;

beforeAll(async () => {
  testRedis = await createTestRedis('intake-outbox');
  outbox = await mkdtemp(path.join(tmpdir(), 'intake-outbox-'));
  worker = await startTestWorker(testRedis, { OUTBOX_DIR: outbox });
});

afterAll(async () => {
  await worker?.close();
  await testRedis?.cleanup();
  if (outbox) await rm(outbox, { recursive: true, force: true });
});

describe('the intake worker without SMTP_URL', () => {
  it('writes both e-mails as .eml files to the outbox directory', async () => {
    const job = buildIntakeJob();

    await worker.add(job);
    await worker.waitForState(job.request_id, 'completed');

    const files = (await readdir(outbox)).sort();
    expect(files).toEqual([`${job.request_id}-confirmation.eml`, `${job.request_id}-operator.eml`]);
    const operator = await simpleParser(await readFile(path.join(outbox, `${job.request_id}-operator.eml`)));
    expect(operator.to).toMatchObject({ text: 'team@shop.example' });
    expect(operator.attachments.map((a) => a.filename)).toContain(`anfrage-${job.request_id}.json`);
  });
});

import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { createTestRedis, type SmtpSink, startSmtpSink, type TestRedis } from '@msa/test-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildIntakeJob, buildQuote } from './support/build-job.js';
import { startTestWorker, waitUntil, type TestWorker } from './support/worker.js';

const run = promisify(execFile);
const DIST = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../dist/cli');

let testRedis: TestRedis;
let smtp: SmtpSink;
let worker: TestWorker;

beforeAll(async () => {
  if (!existsSync(DIST)) throw new Error(`${DIST} is missing: run \`pnpm -F @msa/intake-worker build\` first`);
  testRedis = await createTestRedis('intake-cli');
  smtp = await startSmtpSink();
  worker = await startTestWorker(testRedis, { SMTP_URL: smtp.url });
});

afterAll(async () => {
  await worker?.close();
  await smtp?.close();
  await testRedis?.cleanup();
});

function cli(script: string, args: string[] = []) {
  return run(process.execPath, [path.join(DIST, script), ...args], {
    env: { PATH: process.env.PATH ?? '', REDIS_URL: testRedis.url, REDIS_KEY_PREFIX: testRedis.prefix, QUEUE_PREFIX: worker.config.QUEUE_PREFIX },
  });
}

describe('the list command', () => {
  it('says so when the list is empty', async () => {
    const { stdout } = await cli('list.js');

    expect(stdout).toContain('is empty');
  });

  it('prints the newest entries first, as many as asked for', async () => {
    const older = buildIntakeJob({ body: { shop_name: 'Erster Shop' } });
    const newer = buildIntakeJob({
      body: { shop_name: 'Zweiter Shop' },
      organization: { name: 'Bäckerei Krume', type: 'handwerk' },
      submitter: { email: 'erika.mustermann@example.org', client_id: 'msa_client_pub_1', client_name: 'Agent Desktop' },
      quote: buildQuote(),
    });
    for (const job of [older, newer]) {
      await worker.add(job);
      await worker.waitForState(job.request_id, 'completed');
    }

    const { stdout: all } = await cli('list.js');
    const { stdout: one } = await cli('list.js', ['--count', '1']);

    expect(all.indexOf(newer.request_id)).toBeGreaterThanOrEqual(0);
    expect(all.indexOf(newer.request_id)).toBeLessThan(all.indexOf(older.request_id));
    expect(all).toContain('Zweiter Shop');
    expect(all).toContain('organization: Bäckerei Krume (handwerk, b2b)');
    expect(all).toContain('contact:      Erika Mustermann <erika.mustermann@example.org>');
    expect(all).toContain('products:     hoodie-classic, tshirt-basic');
    expect(all).toContain('submitter:    erika.mustermann@example.org (address confirmed) via client "Agent Desktop" (msa_client_pub_1)');
    expect(all.match(/submitter:/g)).toHaveLength(1);
    expect(all).toContain('quote:        quo_5e0c2a9b7d1f4e38: 1012.40 net + 192.36 VAT = 1204.76 gross EUR (net basis)');
    expect(all).toContain('                40 x bio-polo-herren (dtf, tier 25): 21.76/25.90 each, 870.40 net / 1035.78 gross');
    expect(all.match(/quote:/g)).toHaveLength(1);
    expect(one).toContain(newer.request_id);
    expect(one).not.toContain(older.request_id);
  });

  it('prints JSON lines with --json', async () => {
    const { stdout } = await cli('list.js', ['--json', '--count', '1']);

    const [line] = stdout.trim().split('\n');
    expect(JSON.parse(line!)).toMatchObject({
      shop_name: 'Zweiter Shop',
      shop_type: 'b2b',
      submitter_confirmed_email: 'erika.mustermann@example.org',
      submitter_client_id: 'msa_client_pub_1',
      submitter_client_name: 'Agent Desktop',
    });
  });
});

describe('the list command and caller text that drives a terminal', () => {
  const HOSTILE = {
    shop_name: 'Shop\u001b[2J\u001b]0;owned\u0007 \u009b31m\u007f',
    contact_name: 'Eve\r\nrequest_id: req_forged \u202eexe.txt',
  };

  it('prints escape sequences, CR/LF, BEL, DEL, C1 controls and bidi overrides escaped, never raw', async () => {
    const job = buildIntakeJob({ body: { shop_name: HOSTILE.shop_name }, organization: { contact_name: HOSTILE.contact_name } });
    await worker.add(job);
    await worker.waitForState(job.request_id, 'completed');

    const { stdout: text } = await cli('list.js', ['--count', '1']);
    const { stdout: json } = await cli('list.js', ['--json', '--count', '1']);

    for (const out of [text, json]) {
      // Only the line ends of the output itself.
      // eslint-disable-next-line no-control-regex
      expect(out.replace(/\n/g, '')).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/);
    }
    expect(text).toContain('Shop\\x1b[2J\\x1b]0;owned\\x07 \\x9b31m\\x7f');
    expect(text).toContain('contact:      Eve\\r\\nrequest_id: req_forged \\u202eexe.txt <erika.mustermann@example.org>');
    expect(text.split('\n').filter((line) => line.startsWith('request_id'))).toEqual([]);
    expect(JSON.parse(json.trim())).toMatchObject({ shop_name: HOSTILE.shop_name, contact_name: HOSTILE.contact_name });
  });

  it('shows that a request was made with a key alone', async () => {
    const { stdout } = await cli('list.js', ['--count', '1']);

    expect(stdout).toContain('  address:      unconfirmed (made with a key alone)');
    expect(stdout).not.toContain('confirmation: held back');
  });
});

describe('the retry-failed command', () => {
  it('re-queues failed jobs, which then run with fresh attempts', async () => {
    const jobId = 'req_00000000000000aa';
    await worker.add({ request_id: jobId }, { jobId, attempts: 3 });
    await worker.waitForState(jobId, 'failed');

    const firstFinish = (await worker.queue.getJob(jobId))?.finishedOn ?? 0;

    const { stdout: dry } = await cli('retry-failed.js', ['--dry-run']);
    const stateAfterDryRun = await worker.queue.getJobState(jobId);
    const { stdout } = await cli('retry-failed.js');
    await waitUntil(async () => ((await worker.queue.getJob(jobId))?.finishedOn ?? 0) > firstFinish, 'the retried job to fail again');

    expect(dry).toContain(`would retry ${jobId}`);
    expect(stateAfterDryRun).toBe('failed');
    expect(stdout).toContain(`retrying ${jobId}`);
    expect(stdout).toContain('1 job(s) re-queued');
    expect((await worker.queue.getJob(jobId))?.attemptsMade).toBe(1);
    expect(await worker.queue.getJobState(jobId)).toBe('failed');
  });
});

/*
 * A worker process killed in the middle of a job: another worker takes the
 * stalled job over and finishes it without sending an e-mail twice. The
 * killed worker is the built `node dist/main.js` in a child process, so the
 * kill is real (SIGKILL: no shutdown code runs).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createTestRedis, type SmtpSink, startSmtpSink, TEST_INTERNAL_SECRET, type TestRedis } from '@msa/test-kit';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildIntakeJob } from './support/build-job.js';
import { PNG_1X1, startLogoServer, type LogoServer } from './support/logo-server.js';
import { queueFor, startTestWorker, waitUntil, type TestQueue, type TestWorker } from './support/worker.js';

const MAIN = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../dist/main.js');
const OPERATOR = 'team@shop.example';
const CONTACT = 'erika.mustermann@example.org';
/** Small, so the job of the killed worker is taken over within seconds. */
const QUICK_TAKEOVER = { INTAKE_LOCK_DURATION_MS: '2000', INTAKE_STALLED_INTERVAL_MS: '1000' };

let testRedis: TestRedis;
let logos: LogoServer;
let logoAnswers: 'hang' | 'answer' = 'hang';
const children: ChildProcess[] = [];
const closers: (() => Promise<unknown>)[] = [];

beforeAll(async () => {
  if (!existsSync(MAIN)) throw new Error(`${MAIN} is missing: run \`pnpm -F @msa/intake-worker build\` first`);
  testRedis = await createTestRedis('intake-crash');
  logos = await startLogoServer({
    '/slow.png': (_req, res) => {
      if (logoAnswers === 'answer') res.writeHead(200, { 'content-type': 'image/png' }).end(PNG_1X1);
      // Hanging: the child is killed while it waits for this answer.
    },
  });
});

afterEach(async () => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
  for (const close of closers.splice(0)) await close();
});

afterAll(async () => {
  await logos?.close();
  await testRedis?.cleanup();
});

/** Starts `node dist/main.js` and resolves once it reports that it works on the queue. */
async function spawnWorker(env: Record<string, string>): Promise<ChildProcess> {
  const child = spawn(process.execPath, [MAIN], {
    env: { PATH: process.env.PATH ?? '', NODE_ENV: 'test', LOG_LEVEL: 'info', WORKER_PORT: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let output = '';
  child.stderr!.on('data', (c: Buffer) => (output += c.toString()));
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', (c: Buffer) => {
      output += c.toString();
      if (output.includes('intake worker started')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`worker exited with ${code}:\n${output}`)));
  });
  return child;
}

async function kill(child: ChildProcess): Promise<void> {
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGKILL');
  await exited;
}

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

async function setUp(smtp: SmtpSink): Promise<{ env: Record<string, string>; producer: TestQueue }> {
  closers.push(() => smtp.close());
  const prefix = `{${testRedis.prefix}crash${Math.random().toString(16).slice(2, 8)}}`;
  const env = {
    INTERNAL_AUTH_SECRET: TEST_INTERNAL_SECRET,
    REDIS_URL: testRedis.url,
    REDIS_KEY_PREFIX: testRedis.prefix,
    QUEUE_PREFIX: prefix,
    SMTP_URL: smtp.url,
    MAIL_FROM: 'Merch-Shop Anfragen <anfragen@shop.example>',
    OPERATOR_EMAIL: OPERATOR,
    LOGO_FETCH_ALLOW_PRIVATE_NETWORKS: 'true',
    ...QUICK_TAKEOVER,
  };
  const producer = await queueFor(testRedis, prefix);
  closers.unshift(() => producer.close());
  return { env, producer };
}

async function takeOver(env: Record<string, string>): Promise<TestWorker> {
  const worker = await startTestWorker(testRedis, env);
  closers.unshift(() => worker.close());
  return worker;
}

async function listEntriesOf(requestId: string): Promise<number> {
  const entries = await testRedis.redis.xrange(`${testRedis.prefix}intake:list`, '-', '+');
  return entries.filter(([, values]) => values[values.indexOf('request_id') + 1] === requestId).length;
}

describe('a worker process killed during a job', () => {
  it('leaves the job to another worker, which delivers it once (killed while downloading a logo)', async () => {
    const smtp = await startSmtpSink();
    const { env, producer } = await setUp(smtp);
    const child = await spawnWorker(env);
    const job = buildIntakeJob({ logoUrls: [logos.url('/slow.png')] });
    logoAnswers = 'hang';

    await producer.add(job, { attempts: 3, backoff: { type: 'fixed', delay: 100 } });
    await waitUntil(() => logos.requests.includes('/slow.png'), 'the killed worker to ask for the logo');
    await kill(child);
    logoAnswers = 'answer';
    await takeOver(env);
    await producer.waitForState(job.request_id, 'completed', 20_000);

    expect(smtp.to(OPERATOR)).toHaveLength(1);
    expect(smtp.to(CONTACT)).toHaveLength(1);
    expect(smtp.to(OPERATOR)[0]!.parsed.attachments.some((a) => a.contentType === 'image/png')).toBe(true);
    expect(await listEntriesOf(job.request_id)).toBe(1);
  }, 40_000);

  /**
   * Holds the SMTP transaction to `recipient` until the worker sending it is
   * killed, then lets another worker take the job over and finish it.
   */
  async function killWhileSendingTo(recipient: string) {
    const holding = deferred();
    const killed = deferred();
    let held = false;
    const smtp = await startSmtpSink({
      beforeAccept: async (rcptTo, sessionId) => {
        if (held || !rcptTo.includes(recipient)) return;
        held = true;
        holding.resolve();
        await killed.promise;
        await waitUntil(() => smtp.isClosed(sessionId), 'the killed worker’s SMTP connection to close');
      },
    });
    const { env, producer } = await setUp(smtp);
    const child = await spawnWorker(env);
    const job = buildIntakeJob();

    await producer.add(job, { attempts: 3, backoff: { type: 'fixed', delay: 100 } });
    await holding.promise;
    await kill(child);
    killed.resolve();
    const worker = await takeOver(env);
    await producer.waitForState(job.request_id, 'completed', 20_000);
    return { smtp, job, worker };
  }

  it('warns that the operator e-mail of a request without logos may have gone out, and delivers once (killed while it was being sent)', async () => {
    const { smtp, job, worker } = await killWhileSendingTo(OPERATOR);

    expect(smtp.to(OPERATOR)).toHaveLength(1);
    expect(smtp.to(CONTACT)).toHaveLength(1);
    expect(await listEntriesOf(job.request_id)).toBe(1);
    expect(worker.logs.some((l) => l.level === 'warn' && l.step === 'operator' && String(l.msg).includes('may have sent'))).toBe(true);
  }, 40_000);

  it('does not send the operator e-mail again (killed while the confirmation was being sent)', async () => {
    const { smtp, job, worker } = await killWhileSendingTo(CONTACT);

    expect(smtp.to(OPERATOR)).toHaveLength(1);
    expect(smtp.to(CONTACT)).toHaveLength(1);
    expect(await listEntriesOf(job.request_id)).toBe(1);
    expect(worker.logs.some((l) => l.level === 'warn' && l.step === 'contact' && String(l.msg).includes('may have sent'))).toBe(true);
  }, 40_000);
});

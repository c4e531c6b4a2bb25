// The confirmation goes to an address the caller chose: one address gets at
// most 3 a day, however many keys or clients ask, and the operator still
// gets every request.
import { createTestRedis, type SmtpSink, startSmtpSink, type TestRedis } from '@msa/test-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createConfirmationLimit } from '../src/mail/confirmation-limit.js';
import { buildIntakeJob } from './support/build-job.js';
import { startTestWorker, type TestWorker } from './support/worker.js';

const OPERATOR = 'team@shop.example';
const VICTIM = 'opfer@victim.example';

let testRedis: TestRedis;
let smtp: SmtpSink;
let worker: TestWorker;
/** Refuses the operator's address once when set, so a job's first attempt fails after the limit decided. */
let refuseOperatorOnce = false;

beforeAll(async () => {
  testRedis = await createTestRedis('confirmation-limit');
  smtp = await startSmtpSink({
    onRcpt: (address) => {
      if (address !== OPERATOR || !refuseOperatorOnce) return undefined;
      refuseOperatorOnce = false;
      return Object.assign(new Error('try again later'), { responseCode: 451 });
    },
  });
  worker = await startTestWorker(testRedis, { SMTP_URL: smtp.url, CONFIRMATION_MAILS_PER_ADDRESS_PER_DAY: '3' });
});

afterAll(async () => {
  await worker?.close();
  await smtp?.close();
  await testRedis?.cleanup();
});

async function listEntry(requestId: string): Promise<Record<string, string>> {
  const entries = await testRedis.redis.xrange(`${testRedis.prefix}intake:list`, '-', '+');
  const values = entries.map(([, v]) => v).find((v) => v[v.indexOf('request_id') + 1] === requestId)!;
  return Object.fromEntries(values.flatMap((v, i, all) => (i % 2 ? [] : [[v, all[i + 1]!]])));
}

const mailOf = (requestId: string, kind: 'operator' | 'confirmation') =>
  smtp.messages.filter((m) => m.parsed.messageId === `<${requestId}.${kind}@shop.example>`);

async function metric(name: string): Promise<number> {
  const text = await (await fetch(`${worker.running.url}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(`${name}{`) || l.startsWith(`${name} `));
  return Number(line?.split(' ').pop() ?? NaN);
}

describe('the confirmation e-mail limit', () => {
  it('sends no more than 3 confirmations a day to one address, whatever credential asks, and still delivers every request to the operator', async () => {
    // Five keys, one address written five ways.
    const spellings = [VICTIM, 'Opfer@Victim.example', 'OPFER@VICTIM.EXAMPLE', VICTIM, 'opfer@VICTIM.example'];
    const jobs = spellings.map((email, i) => ({
      ...buildIntakeJob({ organization: { email, contact_name: 'Opfer' } }),
      owner_id: `msa_client_attacker${i}`,
    }));

    for (const job of jobs) {
      await worker.add(job);
      await worker.waitForState(job.request_id, 'completed');
    }

    expect(smtp.messages.filter((m) => m.rcptTo.some((r) => r.toLowerCase() === VICTIM))).toHaveLength(3);
    for (const job of jobs) expect(mailOf(job.request_id, 'operator')).toHaveLength(1);
    const held = jobs.slice(3);
    for (const job of held) {
      expect(mailOf(job.request_id, 'confirmation')).toHaveLength(0);
      const lines = mailOf(job.request_id, 'operator')[0]!.parsed.text!.split('\n');
      expect(lines[2]).toMatch(/^Bestätigungs-E-Mail zurückgehalten: /);
      expect(await listEntry(job.request_id)).toMatchObject({ confirmation_mail: 'held_back', submitter_status: 'unconfirmed' });
    }
    for (const job of jobs.slice(0, 3)) {
      expect(mailOf(job.request_id, 'operator')[0]!.parsed.text).not.toContain('zurückgehalten');
      expect(await listEntry(job.request_id)).toMatchObject({ confirmation_mail: 'sent' });
    }
    expect(await metric('intake_confirmations_held_total')).toBe(2);
  });

  it('keeps the address out of every Redis key name', async () => {
    const keys = await testRedis.redis.keys(`${testRedis.prefix}*`);

    expect(keys.some((k) => k.includes('intake:confirmations:'))).toBe(true);
    expect(keys.some((k) => k.includes('intake:domain-requests:'))).toBe(true);
    expect(keys.filter((k) => /opfer|victim/i.test(k))).toEqual([]);
  });

  it('tells the operator how many live requests the address and its domain made today, counting a retried job once', async () => {
    // One person, a catch-all domain: `+tags` are one mailbox, other names are other mailboxes of the domain.
    const retried = buildIntakeJob({ organization: { email: 'a+1@farm.example' } });
    const sameMailbox = buildIntakeJob({ organization: { email: 'A@farm.example' } });
    const otherMailbox = buildIntakeJob({ organization: { email: 'b@farm.example' } });
    refuseOperatorOnce = true;

    await worker.add(retried, { attempts: 3, backoff: { type: 'fixed', delay: 10 } });
    await worker.waitForState(retried.request_id, 'completed');
    for (const job of [sameMailbox, otherMailbox]) {
      await worker.add(job);
      await worker.waitForState(job.request_id, 'completed');
    }

    expect((await worker.queue.getJob(retried.request_id))?.attemptsMade).toBe(2);
    const countsOf = (job: typeof retried) => mailOf(job.request_id, 'operator').map((m) => m.parsed.text!.split('\n').find((l) => l.startsWith('Heute (UTC)')));
    expect(countsOf(retried)).toEqual(['Heute (UTC) von dieser Adresse: 1 Anfrage; von dieser Domain (farm.example): 1.']);
    expect(countsOf(sameMailbox)).toEqual(['Heute (UTC) von dieser Adresse: 2 Anfragen; von dieser Domain (farm.example): 2.']);
    expect(countsOf(otherMailbox)).toEqual(['Heute (UTC) von dieser Adresse: 1 Anfrage; von dieser Domain (farm.example): 3.']);
  });

  it('counts a retried job once: the attempt that failed after the decision does not use up a confirmation', async () => {
    const address = 'retry@victim.example';
    const first = buildIntakeJob({ organization: { email: address } });
    refuseOperatorOnce = true;

    await worker.add(first, { attempts: 3, backoff: { type: 'fixed', delay: 10 } });
    await worker.waitForState(first.request_id, 'completed');
    const others = [buildIntakeJob({ organization: { email: address } }), buildIntakeJob({ organization: { email: address } })];
    for (const job of others) {
      await worker.add(job);
      await worker.waitForState(job.request_id, 'completed');
    }

    expect((await worker.queue.getJob(first.request_id))?.attemptsMade).toBe(2);
    for (const job of [first, ...others]) expect(mailOf(job.request_id, 'confirmation')).toHaveLength(1);
  });
});

describe('createConfirmationLimit', () => {
  const options = () => ({ redis: testRedis.redis, keyPrefix: `${testRedis.prefix}unit:`, perDay: 3, secret: 'a secret of the test' });

  it('gives a request the same answer on every call and counts it once', async () => {
    const limit = createConfirmationLimit(options());
    const decide = (id: string) => limit.decide(id, 'same@victim.example');

    const answers = [await decide('req_1'), await decide('req_1'), await decide('req_2'), await decide('req_3'), await decide('req_4'), await decide('req_4')];

    expect(answers.map(({ decision, first }) => ({ decision, first }))).toEqual([
      { decision: 'send', first: true },
      { decision: 'send', first: false },
      { decision: 'send', first: true },
      { decision: 'send', first: true },
      { decision: 'hold', first: true },
      { decision: 'hold', first: false },
    ]);
  });

  it('counts the day\'s requests per mailbox and per domain, each request once however often it is decided', async () => {
    const limit = createConfirmationLimit({ ...options(), keyPrefix: `${testRedis.prefix}counts:` });

    const first = await limit.decide('req_1', 'erika+shop@catchall.example');
    const retry = await limit.decide('req_1', 'erika+shop@catchall.example');
    const sameMailbox = await limit.decide('req_2', 'Erika@CatchAll.example');
    const otherMailbox = await limit.decide('req_3', 'max@catchall.example');
    const otherDomain = await limit.decide('req_4', 'erika@other.example');
    const gmail = [await limit.decide('req_5', 'e.rika@gmail.com'), await limit.decide('req_6', 'erika+x@googlemail.com')];

    expect(first.requestsToday).toEqual({ address: 1, domain: 1 });
    expect(retry.requestsToday).toEqual({ address: 1, domain: 1 });
    expect(sameMailbox.requestsToday).toEqual({ address: 2, domain: 2 });
    expect(otherMailbox.requestsToday).toEqual({ address: 1, domain: 3 });
    expect(otherDomain.requestsToday).toEqual({ address: 1, domain: 1 });
    expect(gmail.map((d) => d.requestsToday)).toEqual([{ address: 1, domain: 1 }, { address: 2, domain: 2 }]);
  });

  it('shares the confirmations of one mailbox across its +tags', async () => {
    const limit = createConfirmationLimit({ ...options(), keyPrefix: `${testRedis.prefix}tags:` });

    const decisions = [];
    for (const [i, address] of ['e@v.example', 'e+1@v.example', 'e+2@v.example', 'e+3@v.example'].entries()) decisions.push((await limit.decide(`req_${i}`, address)).decision);

    expect(decisions).toEqual(['send', 'send', 'send', 'hold']);
  });

  it('expires its keys after two days and holds no address or domain in their names', async () => {
    const prefix = `${testRedis.prefix}ttl:`;
    const limit = createConfirmationLimit({ ...options(), keyPrefix: prefix });

    await limit.decide('req_1', 'erika@catchall.example');

    const keys = await testRedis.redis.keys(`${prefix}*`);
    expect(keys).toHaveLength(2);
    for (const key of keys) {
      expect(key).not.toMatch(/erika|catchall/);
      expect(await testRedis.redis.ttl(key)).toBeGreaterThan(2 * 86_400 - 60);
    }
  });

  it('starts again the next UTC day and remembers the day before for a retry just after midnight', async () => {
    let now = Date.parse('2030-01-15T23:59:00Z');
    const limit = createConfirmationLimit({ ...options(), keyPrefix: `${testRedis.prefix}days:`, now: () => now });
    for (const id of ['req_a', 'req_b', 'req_c']) await limit.decide(id, 'days@victim.example');
    const lateHeld = await limit.decide('req_d', 'days@victim.example');

    now = Date.parse('2030-01-16T00:01:00Z');

    expect(lateHeld.decision).toBe('hold');
    const retried = await limit.decide('req_d', 'days@victim.example');
    const nextDay = await limit.decide('req_e', 'days@victim.example');
    expect(retried).toMatchObject({ decision: 'hold', requestsToday: { address: 4, domain: 4 } });
    expect(nextDay).toMatchObject({ decision: 'send', requestsToday: { address: 1, domain: 1 } });
  });

  it('finds the decision of yesterday for a job added yesterday, and reads only today\'s keys for a job added today', async () => {
    let now = Date.parse('2030-02-10T23:59:00Z');
    const addedYesterday = now - 60_000;
    const limit = createConfirmationLimit({ ...options(), keyPrefix: `${testRedis.prefix}added:`, now: () => now });
    for (const id of ['req_a', 'req_b', 'req_c']) await limit.decide(id, 'added@victim.example', { addedAt: addedYesterday });
    await limit.decide('req_d', 'added@victim.example', { addedAt: addedYesterday });

    now = Date.parse('2030-02-11T00:01:00Z');
    const retried = await limit.decide('req_d', 'added@victim.example', { addedAt: addedYesterday });
    const addedToday = await limit.decide('req_e', 'added@victim.example', { addedAt: now - 30_000 });

    expect(retried).toMatchObject({ decision: 'hold', first: false, requestsToday: { address: 4, domain: 4 } });
    expect(addedToday).toMatchObject({ decision: 'send', first: true, requestsToday: { address: 1, domain: 1 } });
  });
});

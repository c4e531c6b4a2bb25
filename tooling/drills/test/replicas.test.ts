/*
 * Several replicas on one Redis: two gateways (each calling a requests
 * service of its own), two requests services and two intake workers, as
 * processes. The per-minute limit holds in total across the gateways, a key
 * created through one gateway works on the other at once, and every live
 * shop request is delivered exactly once although two workers take jobs.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { send, sleep, type Answer } from '../src/client.js';
import { OPERATOR_EMAIL, startDrillSystem, type DrillSystem } from '../src/drill-system.js';
import { listEntries } from '../src/facts.js';
import { buildShopRequest, nextClientIp, shopRequestIdOf } from '../src/shop-request-drill.js';
import { printLogsOnFailure } from './support.js';

const RATE_LIMIT_PER_MINUTE = 10;

let system: DrillSystem;

beforeAll(async () => {
  system = await startDrillSystem({
    instances: { gateway: 2, requests: 2, 'intake-worker': 2 },
    env: { gateway: { RATE_LIMIT_PER_MINUTE: String(RATE_LIMIT_PER_MINUTE) } },
  });
}, 90_000);

afterAll(async () => {
  await system?.close();
});


async function createKey(gateway: string, mode: 'sandbox' | 'live') {
  const created = await send(`${gateway}/v1/keys`, { headers: { 'x-forwarded-for': nextClientIp() }, body: { name: `Replica ${mode} agent`, email: 'replicas@example.org', mode } });
  expect(created.status).toBe(201);
  return created.body as { api_key: string; client_id: string };
}

const me = (gateway: string, apiKey: string) => send(`${gateway}/v1/me`, { method: 'GET', headers: { authorization: `Bearer ${apiKey}` } });

describe('two gateways, two requests services and two workers on one Redis', () => {
  it('runs two processes of each', () => {
    expect(system.gatewayUrls).toHaveLength(2);
    expect(system.instances('requests').map((s) => s.isRunning())).toEqual([true, true]);
    expect(system.instances('intake-worker').map((s) => s.isRunning())).toEqual([true, true]);
  });

  it('accepts a key created through one gateway on the other at once', async () => {
    printLogsOnFailure(system);
    const [a, b] = system.gatewayUrls as [string, string];

    const key = await createKey(a, 'sandbox');
    const onB = await me(b, key.api_key);
    const onA = await me(a, key.api_key);

    expect(onB.status).toBe(200);
    expect(onB.body?.id).toBe(key.client_id);
    expect(onA.status).toBe(200);
  });

  it(`holds RATE_LIMIT_PER_MINUTE (${RATE_LIMIT_PER_MINUTE}) in total across both gateways`, async () => {
    printLogsOnFailure(system);
    const [a, b] = system.gatewayUrls as [string, string];
    const key = await createKey(a, 'sandbox');

    const answers: Answer[] = [];
    for (let i = 0; i < RATE_LIMIT_PER_MINUTE + 6; i += 1) answers.push(await me(i % 2 === 0 ? a : b, key.api_key));
    const byGateway = (g: number) => answers.filter((_, i) => i % 2 === g && answers[i]!.status === 200).length;
    console.log(
      `replicas: rate limit ${RATE_LIMIT_PER_MINUTE}/min over 2 gateways: ${answers.length} sent, ` +
        `${answers.filter((x) => x.status === 200).length} × 200 (${byGateway(0)} + ${byGateway(1)}), ${answers.filter((x) => x.status === 429).length} × 429`,
    );

    expect(answers.filter((x) => x.status === 200)).toHaveLength(RATE_LIMIT_PER_MINUTE);
    expect(answers.filter((x) => x.status === 429)).toHaveLength(6);
    // Both gateways counted into the one limit.
    expect(byGateway(0)).toBeGreaterThan(0);
    expect(byGateway(1)).toBeGreaterThan(0);
  });

  it('delivers every live shop request exactly once: one operator e-mail and one list entry per request', async () => {
    printLogsOnFailure(system);
    const gateways = system.gatewayUrls;
    const principals = await Promise.all(Array.from({ length: 6 }, (_, p) => createKey(gateways[p % 2]!, 'live')));

    const created = await Promise.all(
      Array.from({ length: 24 }, async (_, i) => {
        const principal = principals[i % principals.length]!;
        const answer = await send(`${gateways[i % 2]}/v1/shop-requests`, {
          headers: { authorization: `Bearer ${principal.api_key}`, 'idempotency-key': `replicas-${principal.client_id}-${i}` },
          body: buildShopRequest(`Replica shop #${i}`, i),
        });
        return answer;
      }),
    );
    const ids = created.map((c) => String(c.body?.id));
    const deadline = Date.now() + 20_000;
    const operatorMails = () => system.smtp.messages.filter((m) => m.rcptTo.includes(OPERATOR_EMAIL) && ids.includes(shopRequestIdOf(m) ?? ''));
    while (new Set(operatorMails().map((m) => shopRequestIdOf(m))).size < ids.length && Date.now() < deadline) await sleep(200);
    // The list step comes after both e-mails.
    const listed = async () => new Set((await listEntries(system.redis)).map((e) => e.requestId).filter((id) => ids.includes(id))).size;
    while ((await listed()) < ids.length && Date.now() < deadline) await sleep(200);
    // A second e-mail or list entry would come from the other worker taking the same job; give it a moment.
    await sleep(1_000);
    const list = (await listEntries(system.redis)).filter((e) => ids.includes(e.requestId));
    const perId = (xs: (string | undefined)[]) => ids.map((id) => xs.filter((x) => x === id).length);
    const completedPerWorker = await Promise.all(system.instances('intake-worker').map((w) => completedJobs(w.url)));
    console.log(`replicas: ${ids.length} live shop requests through 2 gateways, delivered by the workers ${completedPerWorker.join(' + ')}`);

    expect(created.map((c) => c.status)).toEqual(ids.map(() => 201));
    expect(perId(operatorMails().map((m) => shopRequestIdOf(m)))).toEqual(ids.map(() => 1));
    expect(perId(list.map((e) => e.requestId))).toEqual(ids.map(() => 1));
    expect(completedPerWorker.reduce((a, b) => a + b, 0)).toBe(ids.length);
  });
});

/** `intake_jobs_completed_total` of one worker's /metrics. */
async function completedJobs(workerUrl: string): Promise<number> {
  const text = await (await fetch(`${workerUrl}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith('intake_jobs_completed_total'));
  return line ? Number(line.split(' ').at(-1)) : 0;
}

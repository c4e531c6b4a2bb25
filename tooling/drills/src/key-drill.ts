// The key-creation drill: POST /v1/keys with an Idempotency-Key, each from an
// address of its own, with a fault in the middle. Credentials are a secret
// shown once, so a retry after a failed attempt must bring back the set that
// attempt made (shown to nobody yet), never a second one, and a repeat after
// the 201 is refused (409), never shown the secrets again.
import { randomBytes } from 'node:crypto';
import { LIMITS } from '@msa/contracts';
import { burst, describeAnswer, isRetryable, remainingOf, send, sendUntilCreated, type Answer, type Outcome } from './client.js';
import { drillConfig } from './config.js';
import type { DrillSystem } from './drill-system.js';
import { storedCredentials, utcDayOf, type StoredCredential } from './facts.js';
import { summarize, type DrillReport } from './report.js';
import { nextClientIp, tally } from './shop-request-drill.js';

export interface KeyDrill {
  name: string;
  keys: number;
  intervalMs: number;
  faultAtMs: number;
  /** Returns what it did, for the summary. */
  fault(system: DrillSystem): Promise<string>;
}

interface Tracked {
  label: string;
  idempotencyKey: string;
  ip: string;
  body: Record<string, unknown>;
  outcome?: Outcome;
  replay?: Outcome;
  /** GET /v1/me with the API key of the 201. */
  me?: Answer;
  /** A creation without Idempotency-Key from the same address afterwards: its RateLimit shows the day's count. */
  final?: Outcome;
}

const QUOTA_POLICY = 'credentials-day';

function post(system: DrillSystem, ip: string, body: Record<string, unknown>, idempotencyKey?: string): Promise<Answer> {
  return send(`${system.baseUrl}/v1/keys`, {
    headers: { 'x-forwarded-for': ip, ...(idempotencyKey ? { 'idempotency-key': idempotencyKey } : {}) },
    body,
  });
}

export async function runKeyDrill(system: DrillSystem, drill: KeyDrill): Promise<DrillReport> {
  const run = randomBytes(3).toString('hex');
  const namePrefix = `drill ${drill.name} ${run} `;
  const tracked: Tracked[] = Array.from({ length: drill.keys }, (_, i) => ({
    label: `${namePrefix}#${i}`,
    idempotencyKey: `${drill.name}-${run}-${i}`,
    ip: nextClientIp(),
    body: { name: `${namePrefix}#${i}`, email: `agent-${i}@drill.example` },
  }));

  let fault = '';
  await burst(
    tracked,
    drill.intervalMs,
    async (t) => {
      t.outcome = await sendUntilCreated(() => post(system, t.ip, t.body, t.idempotencyKey), drillConfig.retryDeadlineMs);
    },
    {
      atMs: drill.faultAtMs,
      run: async () => {
        fault = await drill.fault(system);
      },
    },
  );

  await Promise.all(
    tracked.map(async (t) => {
      if (t.outcome?.created) {
        t.replay = await sendUntilCreated(() => post(system, t.ip, t.body, t.idempotencyKey), drillConfig.retryDeadlineMs);
        const apiKey = t.outcome.created.body?.api_key;
        if (typeof apiKey === 'string') {
          t.me = await send(`${system.baseUrl}/v1/me`, { method: 'GET', headers: { authorization: `Bearer ${apiKey}` } });
        }
      }
      t.final = await sendUntilCreated(
        () => post(system, t.ip, { name: `${t.label} final`, email: 'agent-final@drill.example' }),
        drillConfig.retryDeadlineMs,
      );
    }),
  );

  const stored = await storedCredentials(system.redis, namePrefix);
  return judge(drill.name, fault, tracked, stored);
}

function judge(name: string, fault: string, tracked: Tracked[], stored: StoredCredential[]): DrillReport {
  const problems: string[] = [];
  let storedTwice = 0;
  let usable = 0;
  let orphans = 0;
  const answers: Answer[] = [];

  for (const t of tracked) {
    const outcome = t.outcome!;
    const label = `${t.label} (Idempotency-Key ${t.idempotencyKey})`;
    const seen = [...outcome.answers, ...(t.replay?.answers ?? [])];
    answers.push(...seen, ...(t.final?.answers ?? []));
    // A 429 to the quota read is judged below, against what is stored, and so is the repeat's refusal.
    const judged = [...outcome.answers, ...(t.replay?.answers.filter((x) => x !== t.replay?.refused) ?? []), ...(t.final?.answers.filter((x) => x.status !== 429) ?? [])];
    for (const a of judged.filter((x) => x.status !== 201 && !isRetryable(x))) {
      problems.push(`${label}: answered ${describeAnswer(a)}, neither 201 nor an answer to retry`);
    }
    const records = stored.filter((r) => r.name === t.label);
    // A record whose API key was never indexed cannot be used and its secret was never shown:
    // debris of a crash, not a second set handed out. Only usable sets count.
    const usableSets = records.filter((r) => r.reachable);
    orphans += records.length - usableSets.length;
    if (usableSets.length > 1) {
      storedTwice += 1;
      problems.push(
        `${label}: ${usableSets.length} usable sets of credentials exist: ${records.map((r) => `${r.clientId}${r.reachable ? '' : ' (key not indexed)'}`).join(', ')}`,
      );
    }
    const created = outcome.created;
    if (!created) {
      if (!outcome.refused) {
        const held = records.length ? `stored as ${records.map((r) => r.clientId).join(', ')}` : 'nothing stored';
        problems.push(
          `${label}: no 201 within ${drillConfig.retryDeadlineMs} ms (${held}); answers: ${tally(outcome.answers)}; last: ${describeAnswer(outcome.answers.at(-1)!)}`,
        );
      }
    } else {
      const clientId = String(created.body?.client_id);
      if (!records.some((r) => r.clientId === clientId)) {
        problems.push(`${label}: the client got ${clientId}, but the stored credentials are ${records.map((r) => r.clientId).join(', ') || 'none'}`);
      }
      const again = t.replay?.created ?? t.replay?.refused;
      const secrets = [created.body?.api_key, created.body?.client_secret].map(String);
      if (!again) problems.push(`${label}: sent again after its 201, answered ${tally(t.replay?.answers ?? [])}`);
      else if (again.status === 201) problems.push(`${label}: sent again after 201 ${clientId}, got credentials again (${String(again.body?.client_id)})`);
      else if (again.status !== 409 || again.code !== 'idempotency_key_reused') problems.push(`${label}: sent again after its 201, answered ${describeAnswer(again)}, not 409 idempotency_key_reused`);
      else if (secrets.some((secret) => JSON.stringify(again.body).includes(secret))) problems.push(`${label}: the refused repeat of ${clientId} carries its secrets`);
      if (t.me?.status === 200 && t.me.body?.id === clientId) usable += 1;
      else problems.push(`${label}: the API key of ${clientId} does not authenticate: GET /v1/me answered ${t.me ? describeAnswer(t.me) : 'nothing'}`);
    }

    // The address's day counts the credentials stored for it on that day, nothing else.
    const final = t.final?.created ?? t.final?.answers.at(-1);
    const finalRecord = stored.find((r) => r.clientId === final?.body?.client_id);
    const day = utcDayOf(finalRecord?.createdAt ?? final?.sentAt ?? Date.now());
    const counted = stored.filter((r) => (r.name === t.label || r.name === `${t.label} final`) && utcDayOf(r.createdAt) === day).length;
    const remaining = remainingOf(final?.rateLimit, QUOTA_POLICY);
    if (final?.status === 429) {
      if (counted < LIMITS.keyCreationsPerIpPerDay) {
        problems.push(`${t.ip}: ${counted} sets stored, yet the next creation got 429: the day counted more than was stored`);
      }
    } else if (remaining === undefined) {
      problems.push(`${t.ip}: the creation after the drill carries no RateLimit for ${QUOTA_POLICY} (${final ? describeAnswer(final) : 'no answer'})`);
    } else if (remaining !== LIMITS.keyCreationsPerIpPerDay - counted) {
      problems.push(
        `${t.ip}: ${counted} sets stored, but the quota has ${remaining} of ${LIMITS.keyCreationsPerIpPerDay} left (expected ${LIMITS.keyCreationsPerIpPerDay - counted})`,
      );
    }
  }

  return summarize(name, {
    fault,
    requests: tracked.length,
    inBurst: tracked.length,
    sends: tracked.reduce((n, t) => n + t.outcome!.answers.length, 0),
    created: tracked.filter((t) => t.outcome?.created).length,
    delivered: usable,
    deliveredWord: 'usable',
    note: orphans ? `${orphans} credential records without an indexed key left by the crash` : undefined,
    storedTwice,
    answers,
    problems,
  });
}

// Hands a stored live shop request to the intake worker: enqueue, then mark
// it queued. The POST and the reconciler both finish a request this way, so
// the order lives here once. Store first, enqueue second: if the enqueue
// fails, the request stays pending and the reconciler queues it later; the
// other order could e-mail the operator about a request we never saved.
import { INTAKE_JOB_VERSION, type IntakeJob } from '@msa/contracts';
import { AcceptanceStepRefused, acceptanceOfStored, mayTake } from '../domain/acceptance.js';
import type { ShopRequestStore, StoredShopRequest } from '../store/shop-request-store.js';
import type { IntakeQueue } from './intake-queue.js';

export interface HandOverDeps {
  intake: Pick<IntakeQueue, 'enqueue'>;
  store: Pick<ShopRequestStore, 'markQueued'>;
}

/**
 * `queued`: on the queue and recorded so. `not_queued`: the enqueue failed and
 * the request is still pending. `not_marked`: the job is on the queue but the
 * record still says pending; re-adding it under the same job id is a no-op.
 */
export type HandOverOutcome = { outcome: 'queued' } | { outcome: 'not_queued' | 'not_marked'; err: unknown };

export function intakeJobOf(record: StoredShopRequest): IntakeJob {
  // The quote travels beside the body, which leaves its quote_id out: a
  // worker of the previous release parses the body strictly and would
  // refuse the job, while it drops the unknown `quote` and delivers the rest.
  const { quote_id: _named, ...body } = record.body;
  return {
    version: INTAKE_JOB_VERSION,
    request_id: record.result.id,
    body,
    result: record.result,
    owner_id: record.ownerId,
    request_trace: record.trace,
    // Only when there is one: other jobs stay exactly as before.
    ...(record.submitter ? { submitter: record.submitter } : {}),
    ...(record.quote ? { quote: record.quote } : {}),
  };
}

/**
 * The `queue` step of acceptance.ts. Never rejects for a failed write: each
 * caller decides what that means for it. A record the table does not let
 * queue (a sandbox one, or one queued already) is a caller's mistake: it is
 * refused before anything is written.
 */
export async function handOver({ intake, store }: HandOverDeps, record: StoredShopRequest): Promise<HandOverOutcome> {
  const { state, mode } = acceptanceOfStored(record.intake);
  if (!mayTake('queue', state, mode)) throw new AcceptanceStepRefused(record.result.id, 'queue', state);
  try {
    await intake.enqueue(intakeJobOf(record));
  } catch (err) {
    return { outcome: 'not_queued', err };
  }
  try {
    await store.markQueued(record.result.id);
  } catch (err) {
    return { outcome: 'not_marked', err };
  }
  return { outcome: 'queued' };
}

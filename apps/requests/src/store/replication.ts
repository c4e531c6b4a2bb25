// A shop request is answered 201 only once the replicas hold what the answer
// promises. Redis replicates asynchronously: a master that acknowledged a
// write and died before passing it on leaves a promoted replica without it,
// and a 201 for it would be a request lost (or, with its Idempotency-Key
// binding gone, created twice on retry). With REDIS_WAIT_REPLICAS > 0 the
// POST waits (Redis WAIT) twice on the connection that wrote:
//   - after binding its Idempotency-Key, before anything else is written, so
//     a retry never finds a stored request whose binding was lost;
//   - after its last write (the record, the pending set, the queued mark),
//     before answering, also when a retry answers from the stored record.
// Fewer replicas in time: 503 with Retry-After. Whatever was written stays;
// a retry with the same Idempotency-Key finds it and answers the same id.
// The intake job is confirmed by the queue itself (intake-queue.ts) before
// the record is marked queued.
import { idempotencyOf, serviceUnavailableError, type Logger, type RedisClient } from '@msa/service-kit';
import { waitForReplicas, type ReplicationOptions } from '@msa/service-kit/redis';
import type { Response } from 'express';
import { shopRequestKeysOf } from './shop-request-store.js';

export interface AcceptanceBarrier {
  /** After the Idempotency-Key is bound (a no-op without one), before the request writes anything else. */
  afterBind(res: Response, log: Logger): Promise<void>;
  /** After the last write of request `id`, before it is answered 201. */
  beforeAnswer(res: Response, id: string, log: Logger): Promise<void>;
}

export interface AcceptanceBarrierOptions extends ReplicationOptions {
  /** Counts the requests answered 503 because too few replicas acknowledged. */
  onRefused?: () => void;
}

export const NO_BARRIER: AcceptanceBarrier = { afterBind: async () => undefined, beforeAnswer: async () => undefined };

export function createAcceptanceBarrier(redis: RedisClient, keyPrefix: string, options: AcceptanceBarrierOptions): AcceptanceBarrier {
  if (options.replicas <= 0) return NO_BARRIER;

  async function confirm(keys: string[], log: Logger): Promise<void> {
    try {
      await waitForReplicas(redis, keys, options);
    } catch (err) {
      options.onRefused?.();
      log.warn({ err }, 'shop request writes not acknowledged by enough replicas; answered 503');
      throw serviceUnavailableError(
        'The shop request could not be confirmed on enough Redis replicas; retry with the same Idempotency-Key and it is created at most once.',
      );
    }
  }

  return {
    async afterBind(res, log) {
      const key = idempotencyOf(res)?.key;
      if (key) await confirm([key], log);
    },
    async beforeAnswer(res, id, log) {
      const key = idempotencyOf(res)?.key;
      await confirm([...shopRequestKeysOf(keyPrefix, id), ...(key ? [key] : [])], log);
    },
  };
}

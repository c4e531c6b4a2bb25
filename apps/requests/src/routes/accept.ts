// Answering a POST that creates something, the same way for every resource:
// 201 with the Location of the created one. Where the operation honours an
// Idempotency-Key (shop requests), a repeat replays the first answer, and the
// key is bound to the id before the handler writes anything, so a retry after
// a crash creates under the same id. Where a replication barrier applies
// (store/replication.ts), the binding and the last write are each confirmed
// on the replicas before the request goes on.
import { bindIdempotency, idempotency, idempotencyOf, type IdempotencyOptions } from '@msa/service-kit';
import type { Request, RequestHandler, Response } from 'express';
import { NO_BARRIER, type AcceptanceBarrier } from '../store/replication.js';

export interface AcceptIdempotency<T> extends Pick<IdempotencyOptions, 'redis' | 'keyPrefix' | 'scope' | 'lockSeconds'> {
  newId(): string;
  /** What an interrupted attempt stored under its bound id, when this caller may read it; null when it never stored it. */
  stored(id: string, req: Request): Promise<T | null>;
}

export interface AcceptOptions<T> {
  publicBaseUrl: string;
  /** The read operation's path, `{id}` where the id goes (`/v1/quotes/{id}`). */
  readPath: string;
  idempotency?: AcceptIdempotency<T>;
  barrier?: AcceptanceBarrier;
}

export interface Accept<T> {
  /** Mounted before the handler: the Idempotency-Key's replay, then the id bound to it. */
  readonly before: RequestHandler[];
  /** The id the request creates under: the one its key is bound to. */
  idOf(res: Response): string;
  /** Answers 201 with Location, once the replicas hold what the answer promises. */
  created(req: Request, res: Response, id: string, body: T): Promise<void>;
}

const ID = 'acceptedId';

export function createAccept<T>({ publicBaseUrl, readPath, idempotency: idem, barrier = NO_BARRIER }: AcceptOptions<T>): Accept<T> {
  const locationOf = (id: string, sandbox: boolean) => `${publicBaseUrl}${sandbox ? '/sandbox' : ''}${readPath.replace('{id}', id)}`;

  async function created(req: Request, res: Response, id: string, body: T): Promise<void> {
    await barrier.beforeAnswer(res, id, req.log);
    res.setHeader('Location', locationOf(id, req.ctx.sandbox));
    res.status(201).json(body);
  }
  if (!idem) {
    return { before: [], idOf: () => '', created };
  }

  const replay = idempotency({
    ...idem,
    // The first attempt died after binding its key: answer from what it stored,
    // read from the master, since it may have died before its replicas had it.
    recover: async ({ resource, req, res }) => {
      const stored = await idem.stored(resource, req);
      if (!stored) return false;
      await created(req, res, resource, stored).catch((err: unknown) => {
        res.removeHeader('Idempotent-Replayed');
        throw err;
      });
      return true;
    },
  });
  // A retry of an attempt interrupted after binding creates under the same id.
  const bind: RequestHandler = async (req, res, next) => {
    const id = idempotencyOf(res)?.resource ?? idem.newId();
    res.locals[ID] = id;
    await bindIdempotency(res, id);
    await barrier.afterBind(res, req.log);
    next();
  };
  return { before: [replay, bind], idOf: (res) => res.locals[ID] as string, created };
}

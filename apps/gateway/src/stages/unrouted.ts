// Unrouted: the answer to a request resolve found no route for, given once
// admit has counted it: 404 for an unknown path, 405 with `Allow` for a
// method the path does not take, and 204 with `Allow` for OPTIONS there.
import { appError } from '@msa/service-kit';
import type { Handoff, Stage, View } from './exchange.js';

/** What unrouted reads of the exchange and writes for the stages after it. */
export const UNROUTED_HANDOFF = { reads: ['path', 'miss'], writes: [] } as const satisfies Handoff;

export function createUnroutedStage(): Stage<View<typeof UNROUTED_HANDOFF>> {
  return (x, next) => {
    const { miss, req, res } = x;
    if (!miss) return next(x);
    if (miss.kind === 'not_found') throw appError('not_found', `No resource at ${req.method} ${req.path}.`);
    const allow = [...miss.allowed, ...(miss.allowed.includes('GET') ? ['HEAD'] : []), 'OPTIONS'].join(', ');
    res.setHeader('Allow', allow);
    if (req.method === 'OPTIONS') return void res.status(204).end();
    throw appError('method_not_allowed', `${req.method} is not allowed on ${x.path}.`, { headers: { Allow: allow } });
  };
}

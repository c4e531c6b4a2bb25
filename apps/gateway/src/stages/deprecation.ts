// Deprecation: `Deprecation`, `Sunset` and a `Link` to the notice on the
// operations the contracts list as deprecated (spec §9, RFC 8594).
import type { Deprecation } from '@msa/contracts';
import { createDeprecationLookup } from '../domain/deprecation.js';
import type { Handoff, Stage, View } from './exchange.js';

/** What deprecation reads of the exchange and writes for the stages after it. */
export const DEPRECATION_HANDOFF = { reads: ['path'], writes: [] } as const satisfies Handoff;

export function createDeprecationStage({ deprecations, publicBaseUrl }: { deprecations: readonly Deprecation[]; publicBaseUrl: string }): Stage<View<typeof DEPRECATION_HANDOFF>> {
  const lookup = createDeprecationLookup(deprecations, publicBaseUrl);
  return (x, next) => {
    const headers = lookup(x.req.method === 'HEAD' ? 'GET' : x.req.method, x.path);
    if (headers) for (const [name, value] of Object.entries(headers)) x.res.setHeader(name, value);
    return next(x);
  };
}

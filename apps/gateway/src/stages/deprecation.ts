// Deprecation: `Deprecation`, `Sunset` and a `Link` to the notice on the
// operations the contracts list as deprecated (spec §9, RFC 8594).
import type { Deprecation } from '@msa/contracts';
import { createDeprecationLookup } from '../domain/deprecation.js';
import type { Stage } from './exchange.js';

export function createDeprecationStage({ deprecations, publicBaseUrl }: { deprecations: readonly Deprecation[]; publicBaseUrl: string }): Stage {
  const lookup = createDeprecationLookup(deprecations, publicBaseUrl);
  return (x, next) => {
    const headers = lookup(x.req.method === 'HEAD' ? 'GET' : x.req.method, x.path);
    if (headers) for (const [name, value] of Object.entries(headers)) x.res.setHeader(name, value);
    return next(x);
  };
}

import { timingSafeEqual } from 'node:crypto';
import { IntrospectionRequest, type IntrospectionResponse } from '@msa/contracts';
import { methodNotAllowed, parseOr } from '@msa/service-kit';
import { Router } from 'express';
import { hashSecret, looksLikeApiKey } from '../domain/credentials.js';
import type { RouteDeps } from './context.js';

/** Constant-time comparison of two hex digests. */
function sameDigest(a: string, b: string): boolean {
  const x = Buffer.from(a, 'hex');
  const y = Buffer.from(b, 'hex');
  return x.length === y.length && timingSafeEqual(x, y);
}

/** Internal: the gateway asks who an API key belongs to. Never routed publicly. */
export function introspectRoutes(deps: RouteDeps): Router {
  const router = Router();
  router
    .route('/internal/introspect')
    .post(async (req, res) => {
      const { api_key: apiKey } = parseOr(IntrospectionRequest, req.body ?? {});
      res.setHeader('Cache-Control', 'no-store');
      // Hashed once: the lookup and the comparison below use the same digest.
      const digest = looksLikeApiKey(apiKey) ? hashSecret(apiKey) : null;
      const record = digest ? await deps.store.findByApiKeyHash(digest) : null;
      // The index lookup already matched the hash; comparing again in constant
      // time keeps the answer independent of how the store found the record.
      if (!record || !digest || !sameDigest(digest, record.api_key_hash)) {
        res.json({ active: false } satisfies IntrospectionResponse);
        return;
      }
      const response: IntrospectionResponse = {
        active: true,
        principal: { id: record.client_id, name: record.name, scopes: record.scopes, mode: record.mode, tier: record.tier },
      };
      res.json(response);
    })
    .all(methodNotAllowed({ publicBaseUrl: deps.publicBaseUrl }, ['POST']));
  return router;
}

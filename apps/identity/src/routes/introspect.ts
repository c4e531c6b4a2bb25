import { IntrospectionRequest, type IntrospectionResponse } from '@msa/contracts';
import { methodNotAllowed, parseOr } from '@msa/service-kit';
import { Router } from 'express';
import { hashSecret, looksLikeApiKey, matchesHash } from '../domain/credentials.js';
import type { RouteDeps } from './context.js';

/** Internal: the gateway asks who an API key belongs to. Never routed publicly. */
export function introspectRoutes(deps: RouteDeps): Router {
  const router = Router();
  router
    .route('/internal/introspect')
    .post(async (req, res) => {
      const { api_key: apiKey } = parseOr(IntrospectionRequest, req.body ?? {});
      res.setHeader('Cache-Control', 'no-store');
      const record = looksLikeApiKey(apiKey) ? await deps.store.findByApiKeyHash(hashSecret(apiKey)) : null;
      // The index lookup already matched the hash; comparing again in constant
      // time keeps the answer independent of how the store found the record.
      if (!record || !matchesHash(apiKey, record.api_key_hash)) {
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

import { ApiKeyRequest, LIMITS, type ApiKey } from '@msa/contracts';
import { appError, idempotency, methodNotAllowed, parseOr, type IdempotencyBodyCodec, type Redis } from '@msa/service-kit';
import { Router } from 'express';
import { createCredentials } from '../domain/create-credentials.js';
import { withReservation } from './credential-quota.js';
import type { RouteDeps } from './context.js';

/** The §8 figures that apply to a set of credentials, shown with them. */
export const KEY_LIMITS = {
  requests_per_minute: LIMITS.ratePerMinuteWithCredentials,
  live_shop_requests_per_day: LIMITS.liveShopRequestsPerDay,
  sandbox_shop_requests_per_day: LIMITS.sandboxShopRequestsPerDay,
  access_token_lifetime_seconds: LIMITS.accessTokenLifetimeSeconds,
  daily_limits_reset: '00:00 UTC',
};

export interface KeyIdempotency {
  redis: Redis;
  keyPrefix: string;
  /** Seals stored responses: they carry the new secrets. */
  bodyCodec: IdempotencyBodyCodec;
}

export function keyRoutes(deps: RouteDeps, idem: KeyIdempotency): Router {
  const router = Router();
  const env = { publicBaseUrl: deps.publicBaseUrl };
  // Anonymous callers share nothing but their address; the sandbox flag keeps
  // a production and a sandbox call with the same key and body apart.
  const replay = idempotency({
    redis: idem.redis,
    keyPrefix: idem.keyPrefix,
    bodyCodec: idem.bodyCodec,
    scope: (req) => `ip:${req.ctx.ip}${req.ctx.sandbox ? ':sandbox' : ''}`,
  });

  router
    .route('/v1/keys')
    .post(replay, async (req, res) => {
      const body = parseOr(ApiKeyRequest, req.body ?? {}, 'invalid_request', 'The key request has invalid fields.');
      if (req.ctx.sandbox && body.mode === 'live') {
        throw appError('invalid_request', 'Live keys cannot be created on the sandbox.', {
          fields: [{ field: 'mode', message: 'must be sandbox on the sandbox' }],
          hint: `Create live keys with POST ${deps.publicBaseUrl}/v1/keys, the production path, without sandbox credentials.`,
        });
      }

      const reservation = await deps.quota.reserve(req, res);
      const created = await withReservation(reservation, () =>
        createCredentials(deps.store, {
          name: body.name,
          email: body.email,
          scopes: body.scopes,
          mode: body.mode,
          origin: 'api_key',
        }),
      );
      deps.counters.credentialsCreated.inc({ origin: 'api_key', mode: created.record.mode });
      req.log.info({ clientId: created.clientId, mode: created.record.mode }, 'api key created');

      const response: ApiKey = {
        api_key: created.apiKey,
        client_id: created.clientId,
        client_secret: created.clientSecret,
        mode: created.record.mode,
        scopes: created.record.scopes,
        tier: created.record.tier,
        limits: KEY_LIMITS,
        created_at: created.record.created_at,
      };
      res.setHeader('Cache-Control', 'no-store');
      res.status(201).json(response);
    })
    .all(methodNotAllowed(env, ['POST']));

  return router;
}

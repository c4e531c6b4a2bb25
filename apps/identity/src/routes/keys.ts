import { createHash } from 'node:crypto';
import { ApiKeyRequest, apiKeyLimits, type ApiKey } from '@msa/contracts';
import {
  appError,
  bindIdempotency,
  idempotency,
  idempotencyOf,
  methodNotAllowed,
  parseOr,
  type IdempotencyBodyCodec,
  type RedisClient,
} from '@msa/service-kit';
import { withReservation } from '@msa/service-kit/limits';
import { Router } from 'express';
import { createCredentials, type CreatedCredentials } from '../domain/create-credentials.js';
import type { RouteDeps } from './context.js';

export interface KeyIdempotency {
  redis: RedisClient;
  keyPrefix: string;
  /** Seals stored responses: they carry the new secrets. */
  bodyCodec: IdempotencyBodyCodec;
  /** IDEMPOTENCY_LOCK_SECONDS: how long a request in progress holds its key. */
  lockSeconds?: number;
}

/** The ApiKey answer for credentials just created (also the portal form's JSON answer). */
export function apiKeyOf(created: CreatedCredentials): ApiKey {
  return {
    api_key: created.apiKey,
    client_id: created.clientId,
    client_secret: created.clientSecret,
    mode: created.record.mode,
    scopes: created.record.scopes,
    tier: created.record.tier,
    limits: apiKeyLimits(),
    created_at: created.record.created_at,
  };
}

export function keyRoutes(deps: RouteDeps, idem: KeyIdempotency): Router {
  const router = Router();
  const env = { publicBaseUrl: deps.publicBaseUrl };
  // Anonymous callers share nothing but their address; the sandbox flag keeps
  // a production and a sandbox call with the same key and body apart. An
  // address is not a caller (NAT, a shared proxy), so the secrets, shown once,
  // are never replayed: a repeat creates nothing and gets 409 (see
  // docs/decisions/keys-idempotency.md).
  const replay = idempotency({
    redis: idem.redis,
    keyPrefix: idem.keyPrefix,
    bodyCodec: idem.bodyCodec,
    scope: (req) => `ip:${req.ctx.ip}${req.ctx.sandbox ? ':sandbox' : ''}`,
    ...(idem.lockSeconds ? { lockSeconds: idem.lockSeconds } : {}),
    onceOnly: () =>
      appError('idempotency_key_reused', 'Credentials were already created for this Idempotency-Key; their secrets are shown once only, in the first answer.', {
        hint: 'Use the api_key and client_secret of the first answer. To create other credentials, send a new Idempotency-Key.',
      }),
    // The first attempt died after binding: its credentials were handed to
    // nobody yet may exist, so they are the answer, given this once; never a
    // second set.
    recover: async ({ resource, response, res }) => {
      const record = response ? await deps.store.findByClientId(resource) : null;
      if (!response || !record) return false;
      // The crash may have come between the record and its key index: finish it, so the replayed key works.
      await deps.store.completeIndex(record);
      res.setHeader('Cache-Control', 'no-store');
      res.status(response.status).type(response.contentType).send(response.body);
      return true;
    },
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

      // Named by the Idempotency-Key, so a retry after a crash before the
      // credentials were bound counts the same unit again, not a second one.
      const idempotencyKey = idempotencyOf(res) && req.get('idempotency-key');
      const unit = idempotencyKey ? `idem:${req.ctx.sandbox ? 'sandbox:' : ''}${createHash('sha256').update(idempotencyKey).digest('hex')}` : undefined;
      const reservation = await deps.quota.reserve(req, res, unit);
      const created = await withReservation(reservation, () =>
        createCredentials(
          deps.store,
          { name: body.name, email: body.email, scopes: body.scopes, mode: body.mode, origin: 'api_key' },
          new Date(),
          // Bound with the (sealed) answer before the credentials exist, so a
          // retry after a crash hands out these credentials and no others.
          (prepared) =>
            bindIdempotency(res, prepared.clientId, {
              status: 201,
              contentType: 'application/json; charset=utf-8',
              body: JSON.stringify(apiKeyOf(prepared)),
            }),
        ),
      );
      // Still ours? A retry that took over after our lock expired gives the answer instead. The kit records the
      // request answered as the answer is written, not before: a crash before then leaves these credentials bound,
      // so the first retry gets them (they were shown to nobody); a crash after leaves a repeat refused.
      await idempotencyOf(res)?.confirm();
      deps.counters.credentialsCreated.inc({ origin: 'api_key', mode: created.record.mode });
      req.log.info({ clientId: created.clientId, mode: created.record.mode }, 'api key created');

      const response = apiKeyOf(created);
      res.setHeader('Cache-Control', 'no-store');
      res.status(201).json(response);
    })
    .all(methodNotAllowed(env, ['POST']));

  return router;
}

import { ServiceCallError, type CallContext } from '@msa/contracts';
import { testLogger } from '@msa/test-kit';
import { describe, expect, it } from 'vitest';
import { buildExchange, buildPrincipal, buildRoute, runStage } from '../../test/build-exchange.js';
import { CredentialRefused } from '../auth/challenges.js';
import type { KeyResolver, ResolveOptions } from '../auth/key-resolver.js';
import { InvalidTokenError, type TokenVerifier } from '../auth/token-verifier.js';
import { createAuthenticateStage } from './authenticate.js';

const KEY = `msa_live_${'k'.repeat(32)}`;
const principal = buildPrincipal();

interface Lookup {
  key: string;
  ctx: CallContext;
  opts: ResolveOptions | undefined;
}

function stageWith({ known = null, lookup = async () => principal, verify = async () => principal }: {
  known?: typeof principal | null;
  lookup?: KeyResolver;
  verify?: TokenVerifier;
} = {}) {
  const lookups: Lookup[] = [];
  const resolveKey: KeyResolver = Object.assign(
    async (key: string, ctx: CallContext, opts?: ResolveOptions) => {
      lookups.push({ key, ctx, opts });
      return lookup(key, ctx, opts);
    },
    { fresh: () => known },
  );
  return { lookups, stage: createAuthenticateStage({ resolveKey, verifyToken: verify, logger: testLogger('gateway') }) };
}

describe('authenticate stage', () => {
  it('leaves a caller without credentials anonymous', async () => {
    const { stage } = stageWith();
    const x = buildExchange();

    await runStage(stage, x);

    expect(x.principal).toBeNull();
  });

  it('does not read credentials on a route that takes none', async () => {
    const { lookups, stage } = stageWith();
    const x = buildExchange({ route: buildRoute({ auth: 'none' }), headers: { authorization: `Bearer ${KEY}` } });

    await runStage(stage, x);

    expect(x.principal).toBeNull();
    expect(lookups).toEqual([]);
  });

  it('takes a key resolved moments ago from the cache, without asking whether identity may be asked', async () => {
    const { lookups, stage } = stageWith({ known: principal });
    const x = buildExchange({ headers: { 'x-api-key': KEY } });
    x.mayAskIdentity = () => {
      throw new Error('not to be asked');
    };

    await runStage(stage, x);

    expect(x.principal).toBe(principal);
    expect(lookups).toEqual([]);
  });

  it('resolves a key through identity with the caller\'s address and request id', async () => {
    const { lookups, stage } = stageWith();
    const x = buildExchange({ headers: { authorization: `Bearer ${KEY}` } });

    await runStage(stage, x);

    expect(x.principal).toBe(principal);
    expect(lookups[0]).toMatchObject({ key: KEY, ctx: { ip: '203.0.113.9', request_id: 'req-1' }, opts: { cachedOnly: false } });
  });

  it('uses only what it knows when identity may not be asked', async () => {
    const { lookups, stage } = stageWith();
    const x = buildExchange({ headers: { authorization: `Bearer ${KEY}` } });
    x.mayAskIdentity = async () => false;

    await runStage(stage, x);

    expect(lookups[0]?.opts).toEqual({ cachedOnly: true });
  });

});

describe('authenticate stage, refusing', () => {
  it('refuses an unknown key with a challenge naming the resource', async () => {
    const { stage } = stageWith({ lookup: async () => null });
    const x = buildExchange({ headers: { authorization: `Bearer ${KEY}` } });

    const refusal = runStage(stage, x);

    await expect(refusal).rejects.toBeInstanceOf(CredentialRefused);
    await expect(refusal).rejects.toMatchObject({
      status: 401,
      message: 'The API key is unknown.',
      extra: { headers: { 'WWW-Authenticate': 'Bearer resource_metadata="http://api.test.local/.well-known/oauth-protected-resource", error="invalid_token"' } },
    });
  });

  it('refuses a malformed credential without a lookup', async () => {
    const { lookups, stage } = stageWith();

    await expect(runStage(stage, buildExchange({ headers: { authorization: 'Basic dXNlcjpwYXNz' } }))).rejects.toBeInstanceOf(CredentialRefused);
    expect(lookups).toEqual([]);
  });

  it('refuses a token the verifier refuses, with its reason', async () => {
    const { stage } = stageWith({ verify: async () => Promise.reject(new InvalidTokenError('The access token has expired; request a new one.')) });

    await expect(runStage(stage, buildExchange({ headers: { authorization: 'Bearer aaa.bbb.ccc' } }))).rejects.toMatchObject({
      message: 'The access token has expired; request a new one.',
    });
  });

  it('leaves a 503 for admit when identity is away, and hands on', async () => {
    const { stage } = stageWith({ lookup: async () => Promise.reject(new ServiceCallError(502, null, 'identity answered 502')) });
    const x = buildExchange({ headers: { authorization: `Bearer ${KEY}` } });
    let handedOn = false;

    await runStage(stage, x, () => void (handedOn = true));

    expect(x.refusal).toMatchObject({ status: 503, code: 'service_unavailable', extra: { headers: { 'Retry-After': '5' } } });
    expect(x.principal).toBeNull();
    expect(handedOn).toBe(true);
  });
});

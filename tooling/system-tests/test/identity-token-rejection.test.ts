// The gateway accepts only ES256 access tokens signed with a key identity
// publishes, for this issuer and audience, and not yet expired. A key of the
// test's own is published as an earlier signing key (TOKEN_VERIFY_KEYS), so
// it can sign tokens the gateway must accept, and the same tokens expired or
// otherwise altered, which it must refuse.
import { createPublicKey } from 'node:crypto';
import { testEcKeyPair } from '@msa/test-kit';
import jwt from 'jsonwebtoken';
import supertest from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey, startSystem, type System } from '../src/system.js';

const ROTATED_KID = 'test-rotated-1';
const rotated = testEcKeyPair();

let system: System;
let api: supertest.Agent;
let base: string;
let clientId: string;

beforeAll(async () => {
  system = await startSystem({
    name: 'identity-token-rejection',
    env: { TOKEN_VERIFY_KEYS: JSON.stringify([{ kid: ROTATED_KID, publicKeyPem: rotated.publicKeyPem }]) },
    gatewayEnv: { RATE_LIMIT_ANON_PER_MINUTE: '1000' },
  });
  base = system.baseUrl;
  api = supertest.agent(base);
  clientId = (await createKey(base, { name: 'Forged' })).client_id;
});
afterAll(async () => {
  await system?.close();
});

function claims(overrides: Record<string, unknown> = {}) {
  const now = Math.floor(Date.now() / 1000);
  return {
    iss: base,
    aud: base,
    sub: clientId,
    client_id: clientId,
    scope: 'catalog:read shops:read requests:write requests:read',
    name: 'Forged',
    mode: 'live',
    tier: 'free',
    iat: now,
    exp: now + 600,
    jti: 'test-jti',
    ...overrides,
  };
}

/** RFC 9068 header, so each refusal below is for the reason its test names. */
const atJwt = (kid: string, alg: jwt.Algorithm = 'ES256') => ({ algorithm: alg, header: { alg, typ: 'at+jwt', kid } });
const signRotated = (payload: object, typ = 'at+jwt') =>
  jwt.sign(payload, rotated.privateKeyPem, { algorithm: 'ES256', header: { alg: 'ES256', typ, kid: ROTATED_KID } });

function unsigned(payload: object, header: object = { alg: 'none', typ: 'JWT', kid: 'test-key-1' }) {
  const part = (v: object) => Buffer.from(JSON.stringify(v)).toString('base64url');
  return `${part(header)}.${part(payload)}.`;
}

async function expectRefused(token: string) {
  const res = await api.get('/v1/me').set('Authorization', `Bearer ${token}`);

  expect(res.status).toBe(401);
  expect(res.body.error.code).toBe('unauthorized');
  expect(res.headers['www-authenticate']).toMatch(new RegExp(`^Bearer resource_metadata="${base}/.well-known/oauth-protected-resource"`));
}

describe('access tokens the gateway verifies', () => {
  it('publishes the earlier key in the JWKS next to the current one', async () => {
    const res = await api.get('/.well-known/jwks.json');

    expect(res.body.keys.map((k: { kid: string }) => k.kid)).toEqual(['test-key-1', ROTATED_KID]);
  });

  it('accepts a token signed with a published earlier key (the control for the refusals below)', async () => {
    const res = await api.get('/v1/me').set('Authorization', `Bearer ${signRotated(claims())}`);

    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: clientId, via: 'oauth', mode: 'live' });
  });

  it('refuses an expired token', async () => {
    const past = Math.floor(Date.now() / 1000) - 7200;

    await expectRefused(signRotated(claims({ iat: past, exp: past + 3600 })));
  });

  it('refuses a token signed with an unpublished key under a published kid', async () => {
    const other = testEcKeyPair();

    await expectRefused(jwt.sign(claims(), other.privateKeyPem, atJwt('test-key-1')));
  });

  it('refuses a token signed with an unpublished key under an unknown kid', async () => {
    await expectRefused(jwt.sign(claims(), testEcKeyPair().privateKeyPem, atJwt('nobody')));
  });

  it('refuses an unsigned token (alg none)', async () => {
    await expectRefused(unsigned(claims()));
    await expectRefused(unsigned(claims(), { alg: 'none', typ: 'at+jwt', kid: ROTATED_KID }));
  });

  it('refuses an HS256 token whose secret is the published public key', async () => {
    const jwks = await api.get('/.well-known/jwks.json');
    const jwk = jwks.body.keys.find((k: { kid: string }) => k.kid === 'test-key-1');
    const publicPem = createPublicKey({ key: jwk, format: 'jwk' }).export({ type: 'spki', format: 'pem' }).toString();

    const forged = jwt.sign(claims(), publicPem, atJwt('test-key-1', 'HS256'));

    await expectRefused(forged);
  });

  it('refuses a token for another audience or from another issuer', async () => {
    await expectRefused(signRotated(claims({ aud: 'https://elsewhere.example' })));
    await expectRefused(signRotated(claims({ iss: 'https://elsewhere.example' })));
  });

  it('refuses a validly signed JWT that is not typed as an access token (RFC 9068)', async () => {
    await expectRefused(signRotated(claims(), 'JWT'));
  });

  it('refuses on the REST API a token whose audience is the MCP endpoint', async () => {
    await expectRefused(signRotated(claims({ aud: `${base}/mcp` })));
  });

  it('refuses a token whose signature was altered', async () => {
    const token = signRotated(claims());
    const [h, p, s] = token.split('.');
    const altered = `${h}.${p}.${s!.slice(0, -4)}${s!.slice(-4) === 'AAAA' ? 'BBBB' : 'AAAA'}`;

    await expectRefused(altered);
  });

  it('refuses a token whose claims were changed after signing', async () => {
    const [h, , s] = signRotated(claims({ scope: 'catalog:read' })).split('.');
    const widened = Buffer.from(JSON.stringify(claims())).toString('base64url');

    await expectRefused(`${h}.${widened}.${s}`);
  });
});

import { LIMITS } from '@msa/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildKeyRequest, freshIp, startIdentity, type IdentityHarness } from './identity-app.js';

let h: IdentityHarness;

beforeAll(async () => {
  h = await startIdentity('identity-token-backoff');
});
afterAll(async () => {
  await h.close();
});

async function newClient(): Promise<{ client_id: string; client_secret: string }> {
  const res = await h.api.post('/v1/keys').set(h.as({ ip: freshIp() })).send(buildKeyRequest());
  return res.body;
}

const tokenRequest = (clientId: string, secret: string) =>
  h.api.post('/oauth/token').set(h.as()).send({ grant_type: 'client_credentials', client_id: clientId, client_secret: secret });

const free = LIMITS.tokenFailuresBeforeBackoff;

describe('POST /oauth/token back-off per client_id', () => {
  it(`answers invalid_client to the first ${free} wrong secrets and counts them down in RateLimit`, async () => {
    const client = await newClient();

    const first = await tokenRequest(client.client_id, 'wrong');
    const statuses = [first.status];
    for (let i = 1; i < free; i++) statuses.push((await tokenRequest(client.client_id, 'wrong')).status);

    expect(statuses).toEqual(Array(free).fill(401));
    expect(first.body.error.code).toBe('invalid_client');
    expect(first.headers['ratelimit-policy']).toBe(`"client-auth-failures";q=${free};w=${LIMITS.tokenFailureMemorySeconds}`);
    expect(first.headers.ratelimit).toMatch(new RegExp(`^"client-auth-failures";r=${free - 1};t=\\d+$`));
  });

  it('pauses a client_id after one more wrong secret, right secret included, with 429 and Retry-After', async () => {
    const client = await newClient();
    for (let i = 0; i < free; i++) await tokenRequest(client.client_id, 'wrong');

    const sixth = await tokenRequest(client.client_id, 'wrong');
    const right = await tokenRequest(client.client_id, client.client_secret);

    expect(sixth.status).toBe(401);
    expect(sixth.headers.ratelimit).toBe(`"client-auth-failures";r=0;t=${LIMITS.tokenBackoffBaseSeconds}`);
    expect(right.status).toBe(429);
    expect(right.body.error).toMatchObject({ code: 'rate_limited', status: 429 });
    expect(Number(right.headers['retry-after'])).toBe(LIMITS.tokenBackoffBaseSeconds);
  });

  it('doubles the pause with each further wrong secret', async () => {
    const client = await newClient();
    for (let i = 0; i < free; i++) await tokenRequest(client.client_id, 'wrong');
    const pauses: number[] = [];

    for (let i = 0; i < 3; i++) {
      const res = await tokenRequest(client.client_id, 'wrong');
      pauses.push(Number(/t=(\d+)/.exec(String(res.headers.ratelimit))![1]));
      await new Promise((r) => setTimeout(r, pauses[i]! * 1000 + 50));
    }

    const base = LIMITS.tokenBackoffBaseSeconds;
    expect(pauses).toEqual([base, 2 * base, 4 * base]);
  }, 20_000);

  it('forgets the failures once the right secret gets a token', async () => {
    const client = await newClient();
    for (let i = 0; i < free - 1; i++) await tokenRequest(client.client_id, 'wrong');

    const ok = await tokenRequest(client.client_id, client.client_secret);
    const wrongAgain = await tokenRequest(client.client_id, 'wrong');

    expect(ok.status).toBe(200);
    expect(wrongAgain.status).toBe(401);
    expect(wrongAgain.headers.ratelimit).toMatch(new RegExp(`r=${free - 1};`));
  });

  it("does not pause another client for one client's wrong secrets", async () => {
    const attacked = await newClient();
    const other = await newClient();
    for (let i = 0; i <= free; i++) await tokenRequest(attacked.client_id, 'wrong');

    const res = await tokenRequest(other.client_id, other.client_secret);

    expect(res.status).toBe(200);
  });
});

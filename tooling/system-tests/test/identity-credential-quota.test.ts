// The daily credential quota applies per client address as the gateway sees
// it, to keys and registrations together.
import supertest from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSystem, type System } from '../src/system.js';

let system: System;
let api: supertest.Agent;

beforeAll(async () => {
  system = await startSystem({ name: 'identity-credential-quota', gatewayEnv: { RATE_LIMIT_ANON_PER_MINUTE: '1000' } });
  api = supertest.agent(system.baseUrl);
});
afterAll(async () => {
  await system?.close();
});

describe('credential creation through the gateway', () => {
  it('refuses the 11th creation of a UTC day from one address with 429 and Retry-After', async () => {
    for (let i = 0; i < 7; i++) {
      expect((await api.post('/v1/keys').send({ name: `Agent ${i}`, email: 'dev@example.org' })).status).toBe(201);
    }
    for (let i = 0; i < 3; i++) {
      expect((await api.post('/oauth/register').send({ client_name: `Client ${i}`, contacts: ['dev@example.org'] })).status).toBe(201);
    }

    const res = await api.post('/v1/keys').send({ name: 'One Too Many', email: 'dev@example.org' });

    expect(res.status).toBe(429);
    expect(res.body.error.code).toBe('rate_limited');
    expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
    expect(Number(res.headers['retry-after'])).toBeLessThanOrEqual(86_400);
    expect(res.headers['ratelimit-policy']).toContain('"credentials-day";q=10;w=86400');
  });
});

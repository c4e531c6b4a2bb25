import { Writable } from 'node:stream';
import { createLogger } from '@msa/service-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { basicAuth, buildKeyRequest, freshIp, startIdentity, type IdentityHarness } from './identity-app.js';

let h: IdentityHarness;
const logLines: string[] = [];
beforeAll(async () => {
  const destination = new Writable({
    write(chunk, _encoding, done) {
      logLines.push(String(chunk));
      done();
    },
  });
  h = await startIdentity('identity-stored', { logger: createLogger({ service: 'identity', level: 'trace', destination }) });
});
afterAll(async () => {
  await h.close();
});

async function everyStoredValue(): Promise<string> {
  const { redis, prefix } = h.redis;
  const keys: string[] = [];
  let cursor = '0';
  do {
    const [next, batch] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 500);
    cursor = next;
    keys.push(...batch);
  } while (cursor !== '0');
  const parts: string[] = [...keys];
  for (const key of keys) {
    const type = await redis.type(key);
    if (type === 'string') parts.push((await redis.get(key)) ?? '');
    else if (type === 'hash') parts.push(JSON.stringify(await redis.hgetall(key)));
    else if (type === 'set') parts.push(JSON.stringify(await redis.smembers(key)));
    else parts.push(`${key} has unexpected type ${type}`);
  }
  return parts.join('\n');
}

describe('what identity stores', () => {
  it('holds no API key, client secret or access token in clear, even for replayable responses', async () => {
    const ip = freshIp();
    const key = await h.api.post('/v1/keys').set(h.as({ ip })).set('Idempotency-Key', 'stored-1').send(buildKeyRequest());
    const registration = await h.api.post('/oauth/register').set(h.as({ ip })).send({ client_name: 'Reg', contacts: ['dev@example.org'] });
    const token = await h.api
      .post('/oauth/token')
      .set(h.as())
      .send({ grant_type: 'client_credentials', client_id: key.body.client_id, client_secret: key.body.client_secret });
    expect([key.status, registration.status, token.status]).toEqual([201, 201, 200]);

    const stored = await everyStoredValue();

    expect(stored).toContain(key.body.client_id);
    expect(stored).toContain('idem:');
    for (const secret of [key.body.api_key, key.body.client_secret, registration.body.api_key, registration.body.client_secret, token.body.access_token]) {
      expect(stored).not.toContain(secret);
    }
    expect(stored).not.toMatch(/msa_(test|live|secret)_/);
    expect(stored).not.toContain('unexpected type');
  });
});

describe('what identity logs', () => {
  it('writes no API key, client secret or access token to its log, whatever the outcome', async () => {
    const ip = freshIp();
    const key = await h.api.post('/v1/keys').set(h.as({ ip })).set('Idempotency-Key', 'log-1').send(buildKeyRequest());
    await h.api.post('/v1/keys').set(h.as({ ip })).set('Idempotency-Key', 'log-1').send(buildKeyRequest());
    const token = await h.api
      .post('/oauth/token')
      .set(h.as())
      .set('Authorization', basicAuth(key.body.client_id, key.body.client_secret))
      .send({ grant_type: 'client_credentials' });
    await h.api.post('/oauth/token').set(h.as()).send({ grant_type: 'client_credentials', client_id: key.body.client_id, client_secret: 'msa_secret_wrong' });
    await h.api.post('/internal/introspect').set(h.as()).send({ api_key: key.body.api_key });
    expect(token.status).toBe(200);

    const log = logLines.join('');

    expect(log).toContain(key.body.client_id);
    for (const secret of [key.body.api_key, key.body.client_secret, token.body.access_token, 'msa_secret_wrong']) {
      expect(log).not.toContain(secret);
    }
  });
});

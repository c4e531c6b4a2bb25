import { createMetrics, type Metrics } from '@msa/service-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildKeyRequest, freshIp, startIdentity, type IdentityHarness } from './identity-app.js';

let h: IdentityHarness;
let metrics: Metrics;
let client: { client_id: string; client_secret: string };

beforeAll(async () => {
  metrics = createMetrics('identity');
  h = await startIdentity('identity-token-metrics', { metrics });
  const res = await h.api.post('/v1/keys').set(h.as({ ip: freshIp() })).send(buildKeyRequest({ name: 'Counted Agent' }));
  client = res.body;
});
afterAll(async () => {
  await h.close();
});

async function counted(name: string): Promise<Array<{ labels: Record<string, string | number>; value: number }>> {
  const metric = await metrics.registry.getSingleMetric(name)?.get();
  return (metric?.values ?? []).map(({ labels, value }) => ({ labels: labels as Record<string, string | number>, value }));
}

describe('POST /oauth/token counts', () => {
  it('an issued token under its authentication method, and no refusal', async () => {
    const res = await h.api
      .post('/oauth/token')
      .set(h.as())
      .send({ grant_type: 'client_credentials', client_id: client.client_id, client_secret: client.client_secret });

    expect(res.status).toBe(200);
    expect(await counted('identity_access_tokens_issued_total')).toEqual([{ labels: { auth_method: 'client_secret_post' }, value: 1 }]);
    expect(await counted('identity_token_requests_refused_total')).toEqual([]);
  });

  it('a refusal once, under the error code the grant threw', async () => {
    const unsupported = await h.api.post('/oauth/token').set(h.as()).send({ grant_type: 'password' });
    const wrongSecret = await h.api
      .post('/oauth/token')
      .set(h.as())
      .send({ grant_type: 'client_credentials', client_id: client.client_id, client_secret: 'wrong' });

    expect(unsupported.body.error.code).toBe('unsupported_grant_type');
    expect(wrongSecret.body.error.code).toBe('invalid_client');
    expect(await counted('identity_token_requests_refused_total')).toEqual(
      expect.arrayContaining([
        { labels: { code: 'unsupported_grant_type' }, value: 1 },
        { labels: { code: 'invalid_client' }, value: 1 },
      ]),
    );
    expect(await counted('identity_token_requests_refused_total')).toHaveLength(2);
  });
});

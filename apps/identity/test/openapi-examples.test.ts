// The OpenAPI document shows worked examples of the credential calls. This
// file sends each example body to the real service and compares the answer
// with the example beside it, so the document cannot promise fields or
// figures the service no longer sends.
import { EXAMPLE_REQUESTS, buildOpenApiExamples } from '@msa/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_BASE_URL, freshIp, startIdentity, type IdentityHarness } from './identity-app.js';

const examples = buildOpenApiExamples(TEST_BASE_URL);

/** Field names and value types, recursively: what a client written against the example relies on. */
function shapeOf(value: unknown): unknown {
  if (Array.isArray(value)) return value.length ? [shapeOf(value[0])] : [];
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).sort(([a], [b]) => a.localeCompare(b)).map(([k, v]) => [k, shapeOf(v)]));
  }
  return value === null ? null : typeof value;
}

let h: IdentityHarness;
beforeAll(async () => {
  h = await startIdentity('identity-openapi-examples');
});
afterAll(async () => {
  await h.close();
});

describe('the OpenAPI examples of the credential calls', () => {
  const created = examples.createApiKey!.responses![201]!.created!.value as { limits: object; tier: string; scopes: string[] };

  it.each(Object.entries(examples.createApiKey!.request!['application/json']!))(
    'answers the %s example body of POST /v1/keys with the fields, tier and limits of the 201 example',
    async (_name, example) => {
      const body = example.value as { mode: string; scopes?: string[] };

      const res = await h.api.post('/v1/keys').set(h.as({ ip: freshIp() })).send(body);

      expect(res.status).toBe(201);
      expect(shapeOf(res.body)).toEqual(shapeOf(created));
      expect(res.body).toMatchObject({ mode: body.mode, scopes: body.scopes ?? created.scopes, tier: created.tier, limits: created.limits });
      expect(res.body.api_key).toMatch(body.mode === 'live' ? /^msa_live_/ : /^msa_test_/);
    },
  );

  it('answers the client example of POST /oauth/register with 201 and the same credentials as a key', async () => {
    const res = await h.api.post('/oauth/register').set(h.as({ ip: freshIp() })).send(EXAMPLE_REQUESTS.client);

    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ client_name: EXAMPLE_REQUESTS.client.client_name, grant_types: ['client_credentials'] });
  });

  it('answers the client_credentials example of POST /oauth/token with the fields of the token example', async () => {
    const key = await h.api.post('/v1/keys').set(h.as({ ip: freshIp() })).send(EXAMPLE_REQUESTS.sandboxKey);
    const form = examples.issueAccessToken!.request!['application/x-www-form-urlencoded']!.client_credentials!.value as Record<string, string>;
    const shown = examples.issueAccessToken!.responses![200]!.token!.value as Record<string, unknown>;

    const res = await h.api
      .post('/oauth/token')
      .set(h.as())
      .type('form')
      .send({ ...form, client_id: key.body.client_id, client_secret: key.body.client_secret });

    expect(res.status).toBe(200);
    expect(shapeOf(res.body)).toEqual(shapeOf(shown));
    expect(res.body).toMatchObject({ token_type: shown.token_type, expires_in: shown.expires_in, scope: shown.scope });
  });
});

// Strict OAuth client libraries against the gateway, as an agent developer
// would use them: oauth4webapi finds each protected resource (RFC 9728), gets
// a token for it (RFC 8707) and validates it as an RFC 9068 access token;
// openid-client gets a token for the MCP endpoint; each token opens only the
// resource it was asked for, and a failed client authentication challenges
// only a client that tried Basic.
import * as oauth from 'oauth4webapi';
import * as client from 'openid-client';
import supertest from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey, startSystem, type System } from '../src/system.js';

let system: System;
let base: string;

beforeAll(async () => {
  system = await startSystem({ name: 'oauth-resource-clients', gatewayEnv: { RATE_LIMIT_ANON_PER_MINUTE: '1000' } });
  base = system.baseUrl;
});
afterAll(async () => {
  await system?.close();
});

// Plain http on loopback; production runs behind https.
const insecure = { [oauth.allowInsecureRequests]: true } as const;

async function discoverResource(resource: string) {
  const response = await oauth.resourceDiscoveryRequest(new URL(resource), insecure);
  return oauth.processResourceDiscoveryResponse(new URL(resource), response);
}

async function discoverAuthorizationServer(issuer: string) {
  const response = await oauth.discoveryRequest(new URL(issuer), { ...insecure, algorithm: 'oauth2' });
  return oauth.processDiscoveryResponse(new URL(issuer), response);
}

/** Resource metadata, then its authorization server, then a client-credentials token for the resource. */
async function tokenFor(resource: string, creds: { client_id: string; client_secret: string }) {
  const metadata = await discoverResource(resource);
  const as = await discoverAuthorizationServer(metadata.authorization_servers![0]!);
  const response = await oauth.clientCredentialsGrantRequest(
    as,
    { client_id: creds.client_id },
    oauth.ClientSecretPost(creds.client_secret),
    { resource },
    insecure,
  );
  const tokens = await oauth.processClientCredentialsResponse(as, { client_id: creds.client_id }, response);
  return { as, accessToken: tokens.access_token };
}

function mcpInitialize(path: string, accessToken: string) {
  return supertest(base)
    .post(path)
    .set('Authorization', `Bearer ${accessToken}`)
    .set('Accept', 'application/json, text/event-stream')
    .send({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'oauth-test', version: '1.0.0' } },
    });
}

describe('oauth4webapi resource discovery', () => {
  it.each([
    ['the REST API', '', ''],
    ['the MCP endpoint', '/mcp', ''],
    ['the sandbox REST API', '/sandbox', '/sandbox'],
    ['the sandbox MCP endpoint', '/sandbox/mcp', '/sandbox'],
  ])('discovers %s with its own resource and authorization server', async (_label, path, issuerPath) => {
    const metadata = await discoverResource(`${base}${path}`);

    expect(metadata.resource).toBe(`${base}${path}`);
    expect(metadata.authorization_servers).toEqual([`${base}${issuerPath}`]);
  });

  it('serves the sandbox MCP document also under /sandbox/.well-known/…/mcp', async () => {
    const res = await supertest(base).get('/sandbox/.well-known/oauth-protected-resource/mcp');

    expect(res.status).toBe(200);
    expect(res.body.resource).toBe(`${base}/sandbox/mcp`);
  });
});

describe('tokens for a resource (RFC 8707) in the RFC 9068 format', () => {
  it('gets an /mcp token that validateJwtAccessToken accepts and that opens /mcp', async () => {
    const creds = await createKey(base, { name: 'MCP Agent' });

    const { as, accessToken } = await tokenFor(`${base}/mcp`, creds);

    const request = new Request(`${base}/mcp`, { headers: { authorization: `Bearer ${accessToken}` } });
    const claims = await oauth.validateJwtAccessToken(as, request, `${base}/mcp`, insecure);
    expect(claims).toMatchObject({ iss: base, aud: `${base}/mcp`, sub: creds.client_id, client_id: creds.client_id });
    expect(claims.scope).toEqual(expect.any(String));
    const mcp = await mcpInitialize('/mcp', accessToken);
    expect(mcp.status).toBe(200);
  });

  it('refuses the /mcp token on the REST API, naming the resource to ask for', async () => {
    const creds = await createKey(base);
    const { accessToken } = await tokenFor(`${base}/mcp`, creds);

    const res = await supertest(base).get('/v1/me').set('Authorization', `Bearer ${accessToken}`);

    expect(res.status).toBe(401);
    expect(res.headers['www-authenticate']).toBe(`Bearer resource_metadata="${base}/.well-known/oauth-protected-resource", error="invalid_token"`);
    expect(res.body.error.message).toContain(`resource=${base}`);
  });

  it('gets a REST API token that validateJwtAccessToken accepts and GET /v1/me takes', async () => {
    const creds = await createKey(base, { name: 'REST Agent' });

    const { as, accessToken } = await tokenFor(base, creds);

    const request = new Request(`${base}/v1/me`, { headers: { authorization: `Bearer ${accessToken}` } });
    await expect(oauth.validateJwtAccessToken(as, request, base, insecure)).resolves.toMatchObject({ aud: base });
    const me = await supertest(base).get('/v1/me').set('Authorization', `Bearer ${accessToken}`);
    expect(me.body).toMatchObject({ id: creds.client_id, via: 'oauth' });
  });

  it('keeps a token requested without resource (aud = base URL) working on /mcp', async () => {
    const creds = await createKey(base);
    const config = await client.discovery(new URL(base), creds.client_id, creds.client_secret, client.ClientSecretPost(creds.client_secret), {
      algorithm: 'oauth2',
      execute: [client.allowInsecureRequests],
    });
    const tokens = await client.clientCredentialsGrant(config);

    const mcp = await mcpInitialize('/mcp', tokens.access_token);

    expect(mcp.status).toBe(200);
  });

  it('answers a token for the sandbox MCP endpoint on /mcp with 401 pointing at the /mcp metadata', async () => {
    const creds = await createKey(base);
    const { accessToken } = await tokenFor(`${base}/sandbox/mcp`, creds);

    const wrongPlace = await mcpInitialize('/mcp', accessToken);
    const rightPlace = await mcpInitialize('/sandbox/mcp', accessToken);

    expect(wrongPlace.status).toBe(401);
    expect(wrongPlace.headers['www-authenticate']).toBe(
      `Bearer resource_metadata="${base}/.well-known/oauth-protected-resource/mcp", error="invalid_token"`,
    );
    expect(rightPlace.status).toBe(200);
  });
});

describe('openid-client with resource indicators', () => {
  it('gets an /mcp token with resource that the gateway takes on /mcp only', async () => {
    const creds = await createKey(base);
    const config = await client.discovery(new URL(base), creds.client_id, undefined, client.ClientSecretBasic(creds.client_secret), {
      algorithm: 'oauth2',
      execute: [client.allowInsecureRequests],
    });

    const tokens = await client.clientCredentialsGrant(config, { resource: `${base}/mcp` });

    expect((await mcpInitialize('/mcp', tokens.access_token)).status).toBe(200);
    expect((await supertest(base).get('/v1/me').set('Authorization', `Bearer ${tokens.access_token}`)).status).toBe(401);
  });

  it('is refused with 400 invalid_target for a resource this API does not serve', async () => {
    const creds = await createKey(base);
    const config = await client.discovery(new URL(base), creds.client_id, undefined, client.ClientSecretBasic(creds.client_secret), {
      algorithm: 'oauth2',
      execute: [client.allowInsecureRequests],
    });

    const failure = await client.clientCredentialsGrant(config, { resource: 'https://elsewhere.example.org/mcp' }).catch((err: unknown) => err);

    // The API's envelope carries the RFC 6749 code as error.code, so the library hands back the response itself.
    expect(failure).toBeInstanceOf(client.ClientError);
    const response = (failure as { cause: Response }).cause;
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe('invalid_target');
  });
});

describe('token endpoint challenges', () => {
  async function asMetadata() {
    return discoverAuthorizationServer(base);
  }

  it('reports a wrong client_secret_post as an error response, not as a challenge', async () => {
    const creds = await createKey(base);
    const as = await asMetadata();

    const response = await oauth.clientCredentialsGrantRequest(as, { client_id: creds.client_id }, oauth.ClientSecretPost('wrong'), {}, insecure);

    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toBeNull();
    const failure = await oauth.processClientCredentialsResponse(as, { client_id: creds.client_id }, response).catch((err: unknown) => err);
    expect(failure).not.toBeInstanceOf(oauth.WWWAuthenticateChallengeError);
  });

  it('challenges a wrong client_secret_basic with Basic', async () => {
    const creds = await createKey(base);
    const as = await asMetadata();

    const response = await oauth.clientCredentialsGrantRequest(as, { client_id: creds.client_id }, oauth.ClientSecretBasic('wrong'), {}, insecure);
    const failure = await oauth.processClientCredentialsResponse(as, { client_id: creds.client_id }, response).catch((err: unknown) => err);

    expect(failure).toBeInstanceOf(oauth.WWWAuthenticateChallengeError);
    expect((failure as oauth.WWWAuthenticateChallengeError).cause[0]).toMatchObject({ scheme: 'basic' });
  });
});

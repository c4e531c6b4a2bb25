// A system started as in production, without
// CLIENT_METADATA_ALLOW_PRIVATE_NETWORKS: a Client ID Metadata Document URL
// that points at loopback or a private address ends on an error page, and
// identity never connects there, so a client_id cannot make it probe the
// network it runs in.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSystem, type System } from '../src/system.js';
import { pkce, startAgentHost, type AgentHost } from './oauth-agent-hosts-support.js';

let system: System;
let host: AgentHost;
let documentFetches = 0;

beforeAll(async () => {
  host = await startAgentHost();
  system = await startSystem({ name: 'oauth-agent-hosts-private-metadata', gatewayEnv: { RATE_LIMIT_ANON_PER_MINUTE: '10000' } });
});

afterAll(async () => {
  await system?.close();
  await host?.close();
});

function authorize(clientId: string) {
  const q = new URLSearchParams({
    response_type: 'code',
    client_id: clientId,
    redirect_uri: host.redirectUri,
    code_challenge: pkce().challenge,
    code_challenge_method: 'S256',
    state: 'st-private',
  });
  return fetch(`${system.baseUrl}/oauth/authorize?${q}`, { redirect: 'manual', headers: { 'accept-language': 'en' } });
}

/** A valid document on the loopback https server, counting each fetch of it. */
function serveCountedClient(path: string): string {
  const clientId = `${host.documentOrigin}${path}`;
  const valid = JSON.stringify({ client_id: clientId, client_name: 'Loopback Host', redirect_uris: [host.redirectUri], token_endpoint_auth_method: 'none' });
  host.route(path, (_req, res) => {
    documentFetches++;
    res.writeHead(200, { 'content-type': 'application/json' }).end(valid);
  });
  return clientId;
}

describe('GET /oauth/authorize with a metadata document on a private address', () => {
  it.each([
    ['https on 127.0.0.1', (port: string) => `https://127.0.0.1:${port}/client.json`, 'is not public (loopback)'],
    ['https on localhost', (port: string) => `https://localhost:${port}/client.json`, 'is not public (loopback)'],
    ['https on a private network', () => 'https://10.20.30.40/client.json', 'is not public (private)'],
    ['https on the cloud metadata address', () => 'https://169.254.169.254/latest/client.json', 'is not public (metadata)'],
    ['http on loopback', (port: string) => `http://127.0.0.1:${port}/client.json`, 'neither a registered client nor an https URL'],
  ])('ends on an error page for %s without fetching it', async (_, urlFor, reason) => {
    serveCountedClient('/client.json');
    const port = new URL(host.documentOrigin).port;
    const before = documentFetches;

    const res = await authorize(urlFor(port));

    const html = await res.text();
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toContain('text/html');
    expect(res.headers.get('location')).toBeNull();
    expect(html).toContain(reason);
    expect(documentFetches).toBe(before);
  });
});

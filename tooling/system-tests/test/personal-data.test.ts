// A person's rights of access and erasure against the whole system, through
// the gateway: a real consent flow, a live request delivered by the intake
// worker to the SMTP sink, the export, the erasure, and the operator CLI on
// the same code path. Every service logs at debug level meanwhile, and no
// line may carry the person's address or a name they gave.
import { randomUUID } from 'node:crypto';
import { intakeCopyKeys, type PersonalDataExport } from '@msa/contracts';
import { runPrivacyCommand } from '@msa/identity';
import { startSmtpSink, type SmtpSink } from '@msa/test-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSystem, type System } from '../src/system.js';
import { ConsentSession, buildShopRequest, consentCode, personEmail, pkce, waitUntil } from './oauth-agent-hosts-support.js';

const REDIRECT = 'http://127.0.0.1:4711/callback';
const OPERATOR = 'team@merch.test';
const CONTACT_NAME = 'Erika Vogelsang';
const KEY_NAME = 'Erikas Vereinsagent';

let smtp: SmtpSink;
let system: System;
let base: string;

beforeAll(async () => {
  smtp = await startSmtpSink();
  system = await startSystem({
    name: 'personal-data',
    worker: { smtpUrl: smtp.url, operatorEmail: OPERATOR },
    captureLogs: true,
    env: { LOG_LEVEL: 'debug' },
    gatewayEnv: { RATE_LIMIT_ANON_PER_MINUTE: '10000' },
  });
  base = system.baseUrl;
}, 60_000);

afterAll(async () => {
  await system?.close();
  await smtp?.close();
});

/** A person's token and refresh token, through registration, the consent page and the token endpoint. */
async function personToken(email: string): Promise<{ clientId: string; access: string; refresh: string }> {
  const registered = await fetch(`${base}/oauth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ client_name: 'Privacy Host', redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none' }),
  });
  const clientId = ((await registered.json()) as { client_id: string }).client_id;
  const { verifier, challenge } = pkce();
  const url = new URL(`${base}/oauth/authorize`);
  for (const [k, v] of Object.entries({
    response_type: 'code',
    client_id: clientId,
    redirect_uri: REDIRECT,
    code_challenge: challenge,
    code_challenge_method: 'S256',
    state: 's',
    scope: 'catalog:read requests:write requests:read',
  })) url.searchParams.set(k, v);
  const session = new ConsentSession();
  await session.authorize(url);
  await session.page();
  await session.sendCode(email);
  const redirect = await session.approve(await consentCode(smtp, email), 'live');
  const token = await fetch(`${base}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'authorization_code', client_id: clientId, code: redirect.searchParams.get('code')!, code_verifier: verifier, redirect_uri: REDIRECT }),
  });
  const body = (await token.json()) as { access_token: string; refresh_token: string };
  return { clientId, access: body.access_token, refresh: body.refresh_token };
}

const cliConfig = () => ({
  INTERNAL_AUTH_SECRET: system.env.INTERNAL_AUTH_SECRET!,
  REDIS_KEY_PREFIX: system.prefix,
  REQUESTS_URL: system.services.requests!.url,
  QUEUE_PREFIX: system.queuePrefix,
});

describe('GET and DELETE /v1/me/data, through the gateway', () => {
  it('exports a person\'s requests, grants, credentials and consents, erases them, and the token stops working', async () => {
    const email = personEmail('erika');
    const person = await personToken(email);
    const auth = { authorization: `Bearer ${person.access}` };
    const created = await fetch(`${base}/v1/shop-requests`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json', 'idempotency-key': randomUUID() },
      body: JSON.stringify(buildShopRequest({
        organization: { name: 'Kita Sonnenschein', type: 'verein', contact_name: CONTACT_NAME, email: email.toUpperCase(), phone: '+49 30 555' },
        notes: `Bitte ${CONTACT_NAME} anrufen`,
      })),
    });
    expect(created.status).toBe(201);
    const requestId = ((await created.json()) as { id: string }).id;
    const key = await fetch(`${base}/v1/keys`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: KEY_NAME, email }),
    });
    expect(key.status).toBe(201);
    const keyClientId = ((await key.json()) as { client_id: string }).client_id;
    const list = intakeCopyKeys(system.prefix);
    await waitUntil(async () => (await system.redis.get(list.entry(requestId))) !== null, 'the list entry of the delivered request', 30_000);

    const exported = await fetch(`${base}/v1/me/data`, { headers: auth });

    expect(exported.status).toBe(200);
    const data = (await exported.json()) as PersonalDataExport;
    expect(data.subject).toMatchObject({ kind: 'person', email });
    expect(data.shop_requests).toEqual([expect.objectContaining({ id: requestId, sandbox: false, body: expect.objectContaining({ notes: `Bitte ${CONTACT_NAME} anrufen` }) })]);
    expect(data.oauth_grants).toEqual([expect.objectContaining({ client_id: person.clientId, client_name: 'Privacy Host', status: 'active' })]);
    expect(data.credentials).toEqual([expect.objectContaining({ client_id: keyClientId, name: KEY_NAME, email })]);
    expect(JSON.stringify(data.credentials)).not.toMatch(/hash/);
    expect(data.consent_records).toEqual([expect.objectContaining({ email, client_name: 'Privacy Host', mode: 'live' })]);

    const erased = await fetch(`${base}/v1/me/data`, { method: 'DELETE', headers: auth });

    expect(erased.status).toBe(204);
    // The gateway that passed the erasure stops believing the token's grant at once, not when its grant status expires.
    expect((await fetch(`${base}/v1/me`, { headers: auth })).status).toBe(401);
    const refreshed = await fetch(`${base}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'refresh_token', client_id: person.clientId, refresh_token: person.refresh }),
    });
    expect(refreshed.status).toBe(400);
    const left = (await runPrivacyCommand(cliConfig(), system.redis, { action: 'export', email, scan: true })) as PersonalDataExport;
    expect(left.oauth_grants).toEqual([]);
    expect(left.credentials).toEqual([]);
    expect(left.consent_records).toEqual([]);
    expect(left.shop_requests).toEqual([expect.objectContaining({ id: requestId, erased_at: expect.any(String) })]);
    const stored = JSON.stringify(left.shop_requests);
    expect(stored).not.toContain(CONTACT_NAME);
    expect(stored.toLowerCase()).not.toContain(email);
    expect(stored).toContain('Kita Sonnenschein');
    const entries = await system.redis.xrange(list.list, '-', '+');
    const entry = entries.find(([, fields]) => fields.includes(requestId));
    expect(entry?.[1]).toEqual(expect.arrayContaining(['organization', 'Kita Sonnenschein', 'erased_at']));
    expect(entry?.[1].join(' ')).not.toContain(CONTACT_NAME);
    expect(entry?.[1].join(' ').toLowerCase()).not.toContain(email);
    expect(await system.redis.keys(`${system.prefix}privacy-erasure:*`)).toHaveLength(1);
  }, 90_000);

  it('erases again from the operator CLI without finding anything left to erase', async () => {
    const email = personEmail('repeat');
    const person = await personToken(email);
    await fetch(`${base}/v1/me/data`, { method: 'DELETE', headers: { authorization: `Bearer ${person.access}` } });

    const again = await runPrivacyCommand(cliConfig(), system.redis, { action: 'erase', email, scan: true });

    expect(again).toMatchObject({ grants_revoked: 0, credentials_deleted: 0, consent_mails_dropped: 0, shop_requests: { erased: [], intake_jobs_dropped: 0, list_entries_erased: 0 } });
  }, 60_000);

  it('deletes the credentials of an API key that erases its data, and the key gets 401 at once', async () => {
    const created = await fetch(`${base}/v1/keys`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Eraser agent', email: personEmail('keyholder') }),
    });
    const auth = { authorization: `Bearer ${((await created.json()) as { api_key: string }).api_key}` };
    expect((await fetch(`${base}/v1/me`, { headers: auth })).status).toBe(200);

    const erased = await fetch(`${base}/v1/me/data`, { method: 'DELETE', headers: auth });

    expect(erased.status).toBe(204);
    expect((await fetch(`${base}/v1/me`, { headers: auth })).status).toBe(401);
  });

  it('never logs a person\'s address or a name they gave, at debug level, across consent, delivery and erasure', () => {
    const lines = system.logs.map((line) => JSON.stringify(line));
    expect(lines.length).toBeGreaterThan(50);

    const leaks = lines.filter((line) => /erika-[0-9a-f]{6}@example\.org|repeat-[0-9a-f]{6}@example\.org/i.test(line) || line.includes(CONTACT_NAME) || line.includes(KEY_NAME));

    expect(leaks).toEqual([]);
    expect(lines.some((line) => line.includes('personal data erased'))).toBe(true);
  });
});

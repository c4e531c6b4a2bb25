// Live shop requests through the gateway reach the operator and the contact
// by e-mail and the internal request list; sandbox ones reach nobody.
import { startSmtpSink, type SmtpSink } from '@msa/test-kit';
import supertest from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey, startSystem, type System } from '../src/system.js';

const OPERATOR = 'operator@merch.test';

let system: System;
let api: supertest.Agent;
let smtp: SmtpSink;

beforeAll(async () => {
  smtp = await startSmtpSink();
  system = await startSystem({ name: 'intake-delivery', worker: { smtpUrl: smtp.url, operatorEmail: OPERATOR } });
  api = supertest.agent(system.baseUrl);
});

afterAll(async () => {
  await system?.close();
  await smtp?.close();
});

function buildShopRequest(contactEmail: string) {
  return {
    organization: { name: 'Grundschule am Park', type: 'schule', contact_name: 'Frau Beispiel', email: contactEmail },
    shop_name: 'GS am Park Schulshop',
    products: [{ product: 'Bio T-Shirt Kinder', colors: ['Navy'], designs: [{ position: 'Brust links', width_cm: 8 }] }],
    team_size: 120,
  };
}

const bearer = (key: string) => ({ Authorization: `Bearer ${key}` });
const mailsAbout = (id: string) => smtp.messages.filter((m) => m.parsed.messageId?.startsWith(`<${id}.`));

async function listEntriesOf(id: string): Promise<Record<string, string>[]> {
  const entries = await system.redis.xrange(`${system.prefix}intake:list`, '-', '+');
  return entries
    .map(([, values]) => Object.fromEntries(values.flatMap((v, i, all) => (i % 2 ? [] : [[v, all[i + 1]!]]))) as Record<string, string>)
    .filter((fields) => fields.request_id === id);
}

async function waitUntil(check: () => boolean | Promise<boolean>, what: string, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`timed out waiting for ${what}`);
}

async function deliveredLive(contactEmail: string): Promise<string> {
  const key = await createKey(system.baseUrl, { mode: 'live' });
  const created = await api.post('/v1/shop-requests').set(bearer(key.api_key)).send(buildShopRequest(contactEmail));
  expect(created.status).toBe(201);
  await waitUntil(async () => (await listEntriesOf(created.body.id)).length > 0, 'the list entry of the live request');
  return created.body.id as string;
}

describe('delivery of shop requests made through the gateway', () => {
  it('e-mails the operator and the contact and lists a request made with a live key', async () => {
    const key = await createKey(system.baseUrl, { mode: 'live' });

    const created = await api
      .post('/v1/shop-requests')
      .set(bearer(key.api_key))
      .set('X-Request-Id', 'system-test-live-1')
      .send(buildShopRequest('sekretariat@gs-park.example'));
    await waitUntil(async () => (await listEntriesOf(created.body.id)).length > 0, 'the list entry');

    expect(created.status).toBe(201);
    expect(created.body.sandbox).toBe(false);
    const mails = mailsAbout(created.body.id);
    expect(mails).toHaveLength(2);
    const operator = mails.find((m) => m.rcptTo.includes(OPERATOR));
    const contact = mails.find((m) => m.rcptTo.includes('sekretariat@gs-park.example'));
    expect(operator?.parsed.replyTo?.value[0]?.address).toBe('sekretariat@gs-park.example');
    expect(operator?.parsed.headers.get('x-request-id')).toBe('system-test-live-1');
    expect(operator?.parsed.attachments.map((a) => a.filename)).toContain(`anfrage-${created.body.id}.json`);
    expect(operator?.parsed.text).toContain('bio-t-shirt-kinder');
    expect(contact?.parsed.text).toContain('48 Stunden');
    expect(contact?.parsed.text).toContain(created.body.id);
    expect(await listEntriesOf(created.body.id)).toEqual([
      expect.objectContaining({ shop_name: 'GS am Park Schulshop', organization: 'Grundschule am Park', shop_type: 'b2c', contact_email: 'sekretariat@gs-park.example' }),
    ]);
  });

  it('sends nothing for a request made with a sandbox key', async () => {
    const key = await createKey(system.baseUrl, { mode: 'sandbox' });

    const created = await api.post('/v1/shop-requests').set(bearer(key.api_key)).send(buildShopRequest('sandbox@gs-park.example'));
    // A live request accepted after it is delivered; then a little longer for anything late.
    await deliveredLive('later@gs-park.example');
    await new Promise((r) => setTimeout(r, 1_000));

    expect(created.status).toBe(201);
    expect(created.body.sandbox).toBe(true);
    expect(mailsAbout(created.body.id)).toHaveLength(0);
    expect(smtp.to('sandbox@gs-park.example')).toHaveLength(0);
    expect(await listEntriesOf(created.body.id)).toHaveLength(0);
  });

  it('sends nothing for a request a live key makes on the sandbox path', async () => {
    const key = await createKey(system.baseUrl, { mode: 'live' });

    const created = await api.post('/sandbox/v1/shop-requests').set(bearer(key.api_key)).send(buildShopRequest('sandbox-path@gs-park.example'));
    await deliveredLive('later-2@gs-park.example');
    await new Promise((r) => setTimeout(r, 1_000));

    expect(created.status).toBe(201);
    expect(created.body.sandbox).toBe(true);
    expect(smtp.to('sandbox-path@gs-park.example')).toHaveLength(0);
  });
});

// The requests service's part in a person's rights of access and erasure:
// the internal routes identity calls, over the real app and Redis, with the
// intake worker's list entry written where the worker writes it.
import { StoredShopRequestExport, intakeCopyKeys } from '@msa/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { personalTextsOf } from '../src/privacy/erased-request.js';
import { buildShopRequest, liveWriter, sandboxWriter, startHarness, type Harness } from './support.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness('personal-data');
});
afterAll(async () => {
  await h?.close();
});

const FIND = '/internal/privacy/shop-requests/find';
const ERASE = '/internal/privacy/shop-requests/erase';

/** A person who confirmed `email` on the consent page, as the gateway passes them. */
const person = (email: string, mode: 'live' | 'sandbox' = 'live') =>
  (mode === 'live' ? liveWriter : sandboxWriter)({
    id: `msa_user_${mode === 'live' ? 'live' : 'test'}_${Math.random().toString(16).slice(2, 14)}`,
    via: 'oauth',
    confirmed_email: email,
    client: { id: 'https://host.example/client.json', name: 'Host' },
  });

const personalRequest = (email: string, contact = 'Erika Mustermann') =>
  buildShopRequest({
    organization: { name: 'Kita Sonnenschein', type: 'verein', contact_name: contact, email, phone: '+49 30 123456' },
    notes: `Bitte ${contact} anrufen`,
    occasion: 'Sommerfest',
    products: [{ product: 'bio-t-shirt-unisex', comment: 'in Kindergrößen', designs: [{ width_cm: 20, logo_url: 'https://logo.example/sonne.png', comment: 'mittig' }] }],
  });

/** Writes the list entry and logos of `id` as the intake worker does after delivery. */
async function deliverToList(id: string, email: string): Promise<void> {
  const keys = intakeCopyKeys(h.prefix);
  const entry = await h.redis.xadd(keys.list, '*', 'request_id', id, 'organization', 'Kita Sonnenschein', 'contact_name', 'Erika Mustermann', 'contact_email', email, 'logo_notes', 'https://logo.example/sonne.png: attached');
  await h.redis.set(keys.entry(id), entry!, 'EX', 3600);
  await h.redis.hset(keys.logos(id), 'meta', '[]');
}

describe('POST /internal/privacy/shop-requests/find', () => {
  it('finds live and sandbox requests by contact address (any +tag spelling) and by owner, and no one else\'s', async () => {
    const email = `erika.${Date.now()}@example.org`;
    const live = person(email);
    const sandbox = person(email, 'sandbox');
    const asContact = await h.post(personalRequest(email.replace('@', '+shop@')), { principal: liveWriter() });
    const asSubmitter = await h.post(personalRequest('verein@other.example'), { principal: live });
    const asOwner = await h.post(personalRequest('kasse@other.example'), { principal: sandbox, sandbox: true });
    const stranger = await h.post(personalRequest('someone@else.example'), { principal: liveWriter() });

    const res = await h.internal(FIND, { email, owner_ids: [sandbox.id] });

    expect(res.status).toBe(200);
    const ids = (res.body.shop_requests as StoredShopRequestExport[]).map((r) => StoredShopRequestExport.parse(r).id);
    expect(ids.sort()).toEqual([asContact.body.id, asSubmitter.body.id, asOwner.body.id].sort());
    expect(ids).not.toContain(stranger.body.id);
    const exported = (res.body.shop_requests as StoredShopRequestExport[]).find((r) => r.id === asSubmitter.body.id);
    expect(exported).toMatchObject({ sandbox: false, owner_id: live.id, submitter: { email }, body: { notes: 'Bitte Erika Mustermann anrufen' } });
  });

  it('finds a request stored before the index existed only with scan', async () => {
    const email = `alt.${Date.now()}@example.org`;
    const created = await h.post(personalRequest(email), { principal: liveWriter() });
    await h.redis.del(...(await h.redis.keys(`${h.prefix}privacy-index:*`)));

    const withoutScan = await h.internal(FIND, { email });
    const withScan = await h.internal(FIND, { email, scan: true });

    expect(withoutScan.body.shop_requests).toEqual([]);
    expect(withScan.body.shop_requests.map((r: { id: string }) => r.id)).toEqual([created.body.id]);
  });

  it('answers 422 for a query that is not one', async () => {
    const res = await h.internal(FIND, { owner_ids: 'everyone' });

    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe('validation_failed');
  });
});

describe('POST /internal/privacy/shop-requests/erase', () => {
  it('erases names, addresses, phone, free text and logos, keeps the operator\'s facts, and the worker\'s copies too', async () => {
    const email = `eva.${Date.now()}@example.org`;
    const delivered = await h.post(personalRequest(email, 'Eva Beispiel'), { principal: person(email) });
    const waiting = await h.post(personalRequest(email, 'Eva Beispiel'), { principal: liveWriter() });
    await deliverToList(delivered.body.id, email);
    await h.intake.queue.remove(delivered.body.id);
    expect(await h.intake.queue.getJob(waiting.body.id)).toBeDefined();

    const res = await h.internal(ERASE, { email });

    expect(res.status).toBe(200);
    expect(res.body).toEqual({ erased: [delivered.body.id, waiting.body.id].sort(), intake_jobs_dropped: 1, list_entries_erased: 1 });
    for (const id of [delivered.body.id, waiting.body.id]) {
      const stored = (await h.store.get(id))!;
      expect(personalTextsOf(stored)).toEqual([]);
      expect(JSON.stringify(stored)).not.toContain('Eva Beispiel');
      expect(JSON.stringify(stored)).not.toMatch(new RegExp(email.replace('.', '\\.'), 'i'));
      expect(stored.body.organization).toMatchObject({ name: 'Kita Sonnenschein', type: 'verein' });
      expect(stored.result.products.map((p) => p.handle)).toEqual(['bio-t-shirt-unisex']);
      expect(stored.erasedAt).toBeDefined();
    }
    expect(await h.intake.queue.getJob(waiting.body.id)).toBeUndefined();
    const keys = intakeCopyKeys(h.prefix);
    const entries = await h.redis.xrange(keys.list, '-', '+');
    const entry = entries.find(([, f]) => f.includes(delivered.body.id))!;
    expect(entry[1].join(' ')).not.toContain('Erika Mustermann');
    expect(entry[1].join(' ')).not.toContain(email);
    expect(entry[1]).toEqual(expect.arrayContaining(['organization', 'Kita Sonnenschein', 'erased_at']));
    expect(await h.redis.get(keys.entry(delivered.body.id))).toBe(entry[0]);
    expect(await h.redis.exists(keys.logos(delivered.body.id))).toBe(0);
  });

  it('is idempotent: a repeat erases nothing again and leaves the list as it was', async () => {
    const email = `repeat.${Date.now()}@example.org`;
    const owner = person(email);
    const created = await h.post(personalRequest(email), { principal: owner });
    await deliverToList(created.body.id, email);
    await h.internal(ERASE, { email, owner_ids: [owner.id] });
    const listAfterFirst = await h.redis.xrange(intakeCopyKeys(h.prefix).list, '-', '+');

    const again = await h.internal(ERASE, { email, owner_ids: [owner.id] });

    expect(again.body).toEqual({ erased: [], intake_jobs_dropped: 0, list_entries_erased: 0 });
    expect(await h.redis.xrange(intakeCopyKeys(h.prefix).list, '-', '+')).toEqual(listAfterFirst);
    const found = await h.internal(FIND, { owner_ids: [owner.id] });
    expect(found.body.shop_requests).toEqual([expect.objectContaining({ id: created.body.id, erased_at: expect.any(String) })]);
  });
});

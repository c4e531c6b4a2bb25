// The store's scripts take each step of domain/acceptance.ts exactly from the
// states its table allows, on a real Redis: every step from every state
// either leads where the table says or writes nothing.
import { ShopRequestBody } from '@msa/contracts';
import { createTestRedis, type TestRedis } from '@msa/test-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ACCEPTANCE_STATES,
  Acceptance,
  ClaimAbandonedError,
  mayTake,
  type AcceptanceState,
  type AcceptanceStepName,
} from '../src/domain/acceptance.js';
import { DEFAULT_LIVE_RETENTION_SECONDS, createShopRequestStore, type ShopRequestStore, type StoredShopRequest } from '../src/store/shop-request-store.js';
import { buildShopRequest } from './support.js';

let tr: TestRedis;
let store: ShopRequestStore;
beforeAll(async () => {
  tr = await createTestRedis('acceptance-store');
  store = createShopRequestStore(tr.redis, tr.prefix);
});
afterAll(async () => {
  await tr?.cleanup();
});

const CLAIM = { ownerId: 'msa_client_owner', day: '2030-05-01', mode: 'live' as const };
let next = 0;

function buildRecord(id: string): StoredShopRequest {
  return {
    result: {
      id,
      status: 'received',
      sandbox: false,
      created_at: new Date().toISOString(),
      organization: 'TSV Musterstadt',
      shop_name: 'TSV Fanshop',
      shop_type: 'b2c',
      products: [],
      next_steps: 'Received.',
      warnings: [],
      upstream: null,
    },
    body: ShopRequestBody.parse(buildShopRequest({ products: [], design_service: true })),
    ownerId: CLAIM.ownerId,
    intake: 'pending',
    trace: {},
  };
}

/** A fresh id brought into `state` by the store's own steps. */
async function idIn(state: AcceptanceState): Promise<string> {
  const id = `req_${(next++).toString(16).padStart(16, '0')}`;
  if (state === Acceptance.begun) return id;
  await store.begin(id, CLAIM);
  if (state === Acceptance.abandoned) await store.abandon(id);
  if (state === Acceptance.stored || state === Acceptance.queued) await store.create(buildRecord(id));
  if (state === Acceptance.queued) await store.markQueued(id);
  return id;
}

/** The state the record's hash shows, read here independently of the store's scripts. */
async function stateOf(id: string): Promise<AcceptanceState> {
  const hash = await tr.redis.hgetall(`${tr.prefix}shop-request:${id}`);
  if (hash.result) return hash.intake === 'queued' ? Acceptance.queued : Acceptance.stored;
  if (hash.abandoned) return Acceptance.abandoned;
  return hash.owner ? Acceptance.claimed : Acceptance.begun;
}

/** The test's name: what the table says of `step` from `from`. */
function verdict(step: AcceptanceStepName, from: AcceptanceState): string {
  return mayTake(step, from, 'live') ? `takes the ${step} step` : `refuses the ${step} step and keeps what it holds`;
}

async function isPending(id: string): Promise<boolean> {
  return (await store.pendingIds(new Date(Date.now() + 60_000), 1_000)).includes(id);
}

describe.each(ACCEPTANCE_STATES)('an id that is %s', (from) => {
  it(verdict('claim', from), async () => {
    const id = await idIn(from);
    const before = await tr.redis.hgetall(`${tr.prefix}shop-request:${id}`);

    await store.begin(id, { ...CLAIM, day: '2030-05-02' });

    const after = await tr.redis.hgetall(`${tr.prefix}shop-request:${id}`);
    if (mayTake('claim', from, 'live')) {
      expect(await stateOf(id)).toBe(Acceptance.claimed);
      expect(after.day).toBe('2030-05-02');
    } else {
      expect(after).toEqual(before);
      // The claim's short expiry never lands on a stored record: it keeps its retention.
      expect(await tr.redis.ttl(`${tr.prefix}shop-request:${id}`)).toBeGreaterThan(DEFAULT_LIVE_RETENTION_SECONDS - 60);
    }
    expect(await isPending(id)).toBe(true);
  });

  it(verdict('store', from), async () => {
    const id = await idIn(from);

    const stored = await store.create(buildRecord(id)).then(
      () => true,
      (err: unknown) => err,
    );

    if (mayTake('store', from, 'live')) {
      expect(stored).toBe(true);
      expect(await stateOf(id)).toBe(Acceptance.stored);
      expect(await isPending(id)).toBe(true);
    } else {
      expect(stored).toBeInstanceOf(ClaimAbandonedError);
      expect(await stateOf(id)).toBe(from);
      expect(await store.get(id)).toBeNull();
    }
  });

  it(verdict('abandon', from), async () => {
    const id = await idIn(from);

    const claim = await store.abandon(id);

    if (mayTake('abandon', from, 'live')) {
      expect(claim).toEqual(CLAIM);
      expect(await stateOf(id)).toBe(Acceptance.abandoned);
    } else {
      expect(claim).toBeNull();
      expect(await stateOf(id)).toBe(from);
    }
  });

  it(verdict('forget', from), async () => {
    const id = await idIn(from);
    const pendingBefore = await isPending(id);

    await store.forget(id);

    if (mayTake('forget', from, 'live')) {
      expect(await tr.redis.exists(`${tr.prefix}shop-request:${id}`)).toBe(0);
      expect(await isPending(id)).toBe(false);
    } else {
      expect(await stateOf(id)).toBe(from);
      expect(await isPending(id)).toBe(pendingBefore);
    }
  });
});

describe('the keys a claim counts on besides its owner', () => {
  it('gives the abandon step the domain of a live claim and the address of a sandbox one, for the reconciler to refund', async () => {
    const live = `req_${(next++).toString(16).padStart(16, '0')}`;
    const sandbox = `req_${(next++).toString(16).padStart(16, '0')}`;
    await store.begin(live, { ...CLAIM, domain: 'd'.repeat(32) });
    await store.begin(sandbox, { ...CLAIM, mode: 'sandbox', address: '4:203.0.113.9' });

    expect(await store.abandon(live)).toEqual({ ...CLAIM, domain: 'd'.repeat(32) });
    expect(await store.abandon(sandbox)).toEqual({ ...CLAIM, mode: 'sandbox', address: '4:203.0.113.9' });
  });

  it('forgets the keys of an earlier claim of the same id when it is claimed again', async () => {
    const id = `req_${(next++).toString(16).padStart(16, '0')}`;
    await store.begin(id, { ...CLAIM, mode: 'sandbox', address: '4:203.0.113.9' });
    await store.abandon(id);

    await store.begin(id, CLAIM);

    expect(await store.abandon(id)).toEqual(CLAIM);
  });
});

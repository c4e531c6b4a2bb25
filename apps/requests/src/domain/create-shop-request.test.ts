import { ShopRequestBody, ShopRequestResult, type IntakeJob, type ShopRequestInput } from '@msa/contracts';
import { withOutcome, type AppError } from '@msa/service-kit';
import { utcDay, type DailyQuota, type LimitState } from '@msa/service-kit/limits';
import { buildContext, buildPrincipal, testLogger } from '@msa/test-kit';
import { describe, expect, it } from 'vitest';
import { buildProduct } from '../../test/build-product.js';
import { countingEnqueueFailures } from '../intake/intake-queue.js';
import { domainQuotaKey } from '../store/shop-request-quotas.js';
import type { ShopRequestStore, StoredShopRequest } from '../store/shop-request-store.js';
import { createShopRequest, modeOf, submitterOf, type ShopRequestCall, type ShopRequestDeps } from './create-shop-request.js';
import { createProductIndex } from './product-index.js';

const ID = 'req_0123456789abcdef';
const AT = new Date('2030-05-01T22:00:00.000Z');
const OWNER = 'msa_client_owner';
const ADDRESS = '4:203.0.113.7';
const DOMAIN = domainQuotaKey('eva@tsv.example');

const shirt = buildProduct({ colors: ['Schwarz'] });

function buildBody(overrides: Partial<ShopRequestInput> = {}): ShopRequestBody {
  return ShopRequestBody.parse({
    organization: { name: 'TSV Musterstadt', type: 'verein', contact_name: 'Eva Muster', email: 'eva@tsv.example' },
    shop_name: 'TSV Fanshop',
    products: [{ product: 'bio-t-shirt-unisex' }],
    ...overrides,
  });
}

/** A quota in memory whose named units behave like the Redis one: a unit reserved twice counts once. */
function createFakeQuota(mode: string, points: number, steps: string[]): DailyQuota {
  const units = new Set<string>();
  const policy = `shop-requests-${mode}-day`;
  const refund = async (_key: string, _day: string, unit: string) => {
    steps.push(`refund ${mode} ${unit}`);
    units.delete(unit);
  };
  return {
    policy,
    points,
    async reserve(key, now = new Date(), unit = 'unnamed') {
      steps.push(`reserve ${mode} ${key} ${unit}`);
      const allowed = units.has(unit) || units.size < points;
      if (allowed) units.add(unit);
      const state: LimitState = { policy, limit: points, windowSeconds: 86_400, remaining: points - units.size, resetSeconds: 7_200 };
      return { allowed, day: utcDay(now), unit, state, refund: allowed ? () => refund(key, utcDay(now), unit) : async () => undefined };
    },
    refund,
    async used() {
      return units.size;
    },
  };
}

/** Records every write in order; `failCreate` makes storing fail like a broken store. */
function createFakeStore(steps: string[], { failCreate = false } = {}) {
  const records = new Map<string, StoredShopRequest>();
  const store: ShopRequestStore = {
    async begin(id, claim) {
      steps.push(`begin ${id} ${claim.mode} ${claim.ownerId} ${claim.day}`);
    },
    async create(record) {
      if (failCreate) throw new Error('store refused the write');
      steps.push(`store ${record.result.id} ${record.intake}`);
      records.set(record.result.id, record);
    },
    async get(id) {
      return records.get(id) ?? null;
    },
    async abandon() {
      return null;
    },
    async markQueued(id) {
      steps.push(`mark ${id}`);
    },
    async pendingIds() {
      return [];
    },
    async dropPending() {},
    async forget(id) {
      steps.push(`forget ${id}`);
    },
  };
  return { store, records };
}

function createFakeCounters() {
  const counted: string[] = [];
  const counters = {
    requests: { inc: (labels: Record<string, string>) => void counted.push(`${labels.mode} ${labels.outcome}`) },
    enqueueFailures: { inc: () => void counted.push('enqueue failure') },
  };
  return { counted, counters };
}

/** The 429's RateLimit headers: the quota that refused, as the caller sees it. */
function quotaShownBy(err: AppError): string | undefined {
  return err.extra.headers?.RateLimit;
}

function setUp({ livePoints = 5, domainPoints = 20, addressPoints = 200, failCreate = false, failEnqueue = false } = {}) {
  const steps: string[] = [];
  const { store, records } = createFakeStore(steps, { failCreate });
  const { counted, counters } = createFakeCounters();
  const jobs: IntakeJob[] = [];
  const deps: ShopRequestDeps = {
    store,
    quotas: {
      live: createFakeQuota('live', livePoints, steps),
      sandbox: createFakeQuota('sandbox', 200, steps),
      sandboxPerAddress: createFakeQuota('sandbox-address', addressPoints, steps),
      livePerDomain: createFakeQuota('live-domain', domainPoints, steps),
    },
    catalog: { index: async () => createProductIndex([shirt]) },
    quotes: { get: async () => null },
    // Counted as the app composes it (app.ts).
    intake: countingEnqueueFailures(
      {
        async enqueue(job: IntakeJob) {
          if (failEnqueue) throw new Error('queue down');
          steps.push(`enqueue ${job.request_id}`);
          jobs.push(job);
        },
      },
      counters.enqueueFailures,
    ),
    publicBaseUrl: 'https://api.example',
  };
  const call = (sandbox = false): ShopRequestCall => ({
    id: ID,
    caller: { ownerId: OWNER, anonymous: false, address: ADDRESS },
    ctx: buildContext({ principal: buildPrincipal({ id: OWNER, mode: sandbox ? 'sandbox' : 'live' }), sandbox }),
    trace: { request_id: 'r-1' },
    at: AT,
    log: testLogger(),
  });
  /** The use case as the route runs it: its outcome counted once (routes/shop-request-routes.ts). */
  const accept = (c: ShopRequestCall, body: ShopRequestBody) =>
    withOutcome(counters.requests, { mode: modeOf(c.ctx) }, () => createShopRequest(deps, c, body));
  return { deps, call, accept, steps, records, counted, jobs };
}

const SUBMITTER = { email: 'eva@tsv.example', client_id: 'https://agent.example/client.json', client_name: 'Agent Desktop' };

describe('createShopRequest', () => {
  it('writes each step before the next can commit: key, claim, quota unit, record, queue, mark', async () => {
    const { accept, call, steps, counted } = setUp();

    const { result, quota } = await accept(call(), buildBody());

    expect(steps).toEqual([
      `begin ${ID} live ${OWNER} 2030-05-01`,
      `reserve live ${OWNER} ${ID}`,
      `reserve live-domain ${DOMAIN} ${ID}`,
      `store ${ID} pending`,
      `enqueue ${ID}`,
      `mark ${ID}`,
    ]);
    expect(ShopRequestResult.parse(result)).toMatchObject({ id: ID, status: 'received', sandbox: false, created_at: AT.toISOString() });
    expect(counted).toEqual(['live created']);
    expect(quota).toEqual([expect.objectContaining({ policy: 'shop-requests-live-day', remaining: 4 })]);
  });

  it('stores a sandbox request as finished and never hands it over', async () => {
    const { accept, call, steps, records } = setUp();

    await accept(call(true), buildBody());

    expect(steps).toEqual([
      `begin ${ID} sandbox ${OWNER} 2030-05-01`,
      `reserve sandbox ${OWNER} ${ID}`,
      `reserve sandbox-address ${ADDRESS} ${ID}`,
      `store ${ID} none`,
    ]);
    expect(records.get(ID)?.trace).toEqual({ request_id: 'r-1' });
  });

  it('stores the confirmed submitter with a live request and hands it to the queue', async () => {
    const { accept, call, records, jobs } = setUp();
    const live = call();

    await accept({ ...live, caller: { ...live.caller, submitter: SUBMITTER } }, buildBody());

    expect(records.get(ID)?.submitter).toEqual(SUBMITTER);
    expect(jobs).toEqual([expect.objectContaining({ request_id: ID, submitter: SUBMITTER })]);
  });

  it('stores a live request without a confirmed submitter as before: no submitter field anywhere', async () => {
    const { accept, call, records, jobs } = setUp();

    await accept(call(), buildBody());

    expect(records.get(ID)).not.toHaveProperty('submitter');
    expect(jobs[0]).not.toHaveProperty('submitter');
  });

  it('keeps no submitter on a sandbox request, which reaches nobody', async () => {
    const { accept, call, records } = setUp();
    const sandbox = call(true);

    await accept({ ...sandbox, caller: { ...sandbox.caller, submitter: SUBMITTER } }, buildBody());

    expect(records.get(ID)).not.toHaveProperty('submitter');
  });

  it('keeps a stored live request accepted when the queue is down, counting the enqueue failure', async () => {
    const { accept, call, steps, counted } = setUp({ failEnqueue: true });

    const { result } = await accept(call(), buildBody());

    expect(result.id).toBe(ID);
    expect(steps.at(-1)).toBe(`store ${ID} pending`);
    // Counted once it failed, before the request is counted as answered.
    expect(counted).toEqual(['enqueue failure', 'live created']);
  });

  it('gives the unit back and drops the claim when storing fails, answering intake_unavailable', async () => {
    const { accept, call, steps, counted } = setUp({ failCreate: true });

    const err = (await accept(call(), buildBody()).catch((e: unknown) => e)) as AppError;

    expect(err).toMatchObject({ code: 'intake_unavailable' });
    expect(steps.slice(-3)).toEqual([`refund live ${ID}`, `refund live-domain ${ID}`, `forget ${ID}`]);
    expect(counted).toEqual(['live unavailable']);
    expect(quotaShownBy(err)).toBeUndefined();
  });

  it('gives the unit back for a product the catalog does not know, and names it', async () => {
    const { accept, call, steps, counted } = setUp();

    const run = accept(call(), buildBody({ products: [{ product: 'no-such-thing' }] }));

    const err = (await run.catch((e: unknown) => e)) as AppError;
    expect(err.code).toBe('validation_failed');
    expect(err.extra.fields).toEqual([expect.objectContaining({ field: 'products.0.product' })]);
    expect(steps.slice(-3)).toEqual([`refund live ${ID}`, `refund live-domain ${ID}`, `forget ${ID}`]);
    expect(counted).toEqual(['live invalid']);
  });

  it('refuses a request past the daily limit before storing anything, and points to the sandbox quota', async () => {
    const { accept, call, steps, counted } = setUp({ livePoints: 0 });

    const err = (await accept(call(), buildBody()).catch((e: unknown) => e)) as AppError;

    expect(err.code).toBe('rate_limited');
    expect(err.message).toContain('2030-05-02T00:00:00.000Z');
    expect(err.extra.hint).toContain('the sandbox accepts 200 shop requests a day');
    expect(steps).toEqual([`begin ${ID} live ${OWNER} 2030-05-01`, `reserve live ${OWNER} ${ID}`, `forget ${ID}`]);
    expect(counted).toEqual(['live rate_limited']);
    expect(quotaShownBy(err)).toBe('"shop-requests-live-day";r=0;t=7200');
  });

  it('refuses a live request past its domain\'s daily limit, gives the principal\'s unit back and names the domain', async () => {
    const { accept, call, steps, counted } = setUp({ domainPoints: 0 });

    const err = (await accept(call(), buildBody()).catch((e: unknown) => e)) as AppError;

    expect(err.code).toBe('rate_limited');
    expect(err.message).toContain('for contacts at tsv.example');
    expect(err.extra.hint).toContain('the count starts again at UTC midnight');
    expect(steps.slice(1)).toEqual([`reserve live ${OWNER} ${ID}`, `reserve live-domain ${DOMAIN} ${ID}`, `refund live ${ID}`, `forget ${ID}`]);
    expect(counted).toEqual(['live rate_limited']);
    expect(quotaShownBy(err)).toBe('"shop-requests-live-domain-day";r=0;t=7200');
  });

  it('refuses a sandbox request past its address\'s daily limit and gives the principal\'s unit back', async () => {
    const { accept, call, steps, counted } = setUp({ addressPoints: 0 });

    const err = (await accept(call(true), buildBody()).catch((e: unknown) => e)) as AppError;

    expect(err.code).toBe('rate_limited');
    expect(err.message).toContain('from this address, whatever the credentials');
    expect(steps.slice(1)).toEqual([`reserve sandbox ${OWNER} ${ID}`, `reserve sandbox-address ${ADDRESS} ${ID}`, `refund sandbox ${ID}`, `forget ${ID}`]);
    expect(counted).toEqual(['sandbox rate_limited']);
  });
});

describe('submitterOf', () => {
  it('names the confirmed address and the authorized client of an authorization code principal', () => {
    const principal = buildPrincipal({ via: 'oauth', confirmed_email: 'eva@tsv.example', client: { id: 'https://agent.example/client.json', name: 'Agent Desktop' } });

    expect(submitterOf(principal)).toEqual(SUBMITTER);
  });

  it.each([
    ['an API key', buildPrincipal({ via: 'api_key' })],
    ['a principal with an address but no client', buildPrincipal({ via: 'oauth', confirmed_email: 'eva@tsv.example' })],
    ['no principal', null],
  ])('names nobody for %s', (_name, principal) => {
    expect(submitterOf(principal)).toBeUndefined();
  });
});

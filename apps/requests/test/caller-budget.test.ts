// What one caller can make this service store in a day, counted per caller
// and not only per principal: quotes per principal and per address, the same
// quote answered from the store, a week's lifetime for quotes and sandbox
// requests, a sandbox day per address whatever the keys, and a live day per
// contact domain whatever the principals. Each test replays an attack.
import { LIMITS, type QuoteInput } from '@msa/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { QUOTE_MAX_STORED_BYTES } from '../src/store/quote-store.js';
import { buildShopRequest, keysMatching, liveWriter, sandboxWriter, startHarness, type Harness } from './support.js';

// Two hours before a UTC midnight, so Retry-After is exact.
const NOW = new Date('2030-05-01T22:00:00.000Z');
const WEEK_MS = 7 * 86_400_000;

let ips = 0;
/** A client address of its own for each test, so counts per address do not meet. */
const nextIp = () => `198.51.100.${++ips}`;

let quoteNo = 0;
/** A quote body no other test asks for, so it is stored rather than answered from the store. */
function distinctQuote(): QuoteInput {
  quoteNo += 1;
  return { organization_type: 'unternehmen', lines: [{ product: 'bio-polo-herren', quantity: quoteNo }] };
}

describe('quotes per principal and per address', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness('budget-quotes', { now: () => NOW, quoteQuotaLimits: { perPrincipal: 3, perAddress: 5 } });
  });
  afterAll(async () => {
    await h?.close();
  });

  it('answers an anonymous address 429 past its daily quotes, with Retry-After to UTC midnight, and stores nothing for it', async () => {
    const ip = nextIp();
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) statuses.push((await h.postQuote(distinctQuote(), { ip })).status);
    const before = (await keysMatching(h.redis, `${h.prefix}quote:*`)).length;

    const sixth = await h.postQuote(distinctQuote(), { ip });

    expect(statuses).toEqual([201, 201, 201, 201, 201]);
    expect(sixth.status).toBe(429);
    expect(sixth.body.error).toMatchObject({ code: 'rate_limited', status: 429 });
    expect(sixth.body.error.message).toContain('5 new quotes per day from this address');
    expect(sixth.body.error.message).toContain('2030-05-02T00:00:00.000Z');
    expect(sixth.body.error.hint).toContain('the count starts again at UTC midnight');
    expect(sixth.headers['retry-after']).toBe('7200');
    expect(sixth.headers['ratelimit-policy']).toBe('"quotes-address-day";q=5;w=86400');
    expect(sixth.headers.ratelimit).toBe('"quotes-address-day";r=0;t=7200');
    expect((await keysMatching(h.redis, `${h.prefix}quote:*`)).length).toBe(before);
    expect((await h.postQuote(distinctQuote(), { ip: nextIp() })).status).toBe(201);
  });

  it('counts an IPv6 caller by its /64, so new addresses of one network share the day', async () => {
    for (let i = 0; i < 5; i++) expect((await h.postQuote(distinctQuote(), { ip: `2001:db8:77:1::${i + 1}` })).status).toBe(201);

    const sameNetwork = await h.postQuote(distinctQuote(), { ip: '2001:db8:77:1:ffff::9' });

    expect(sameNetwork.status).toBe(429);
  });

  it('counts the quotes of every principal of an address for that address as well', async () => {
    const ip = nextIp();
    for (const principal of [liveWriter(), liveWriter()]) {
      for (let i = 0; i < 2; i++) expect((await h.postQuote(distinctQuote(), { principal, ip })).status).toBe(201);
    }
    expect((await h.postQuote(distinctQuote(), { principal: sandboxWriter(), sandbox: true, ip })).status).toBe(201);

    const freshKey = await h.postQuote(distinctQuote(), { principal: liveWriter(), ip });
    const anonymous = await h.postQuote(distinctQuote(), { ip });

    expect(freshKey.status).toBe(429);
    expect(anonymous.status).toBe(429);
    expect(freshKey.body.error.message).toContain('from this address');
  });

  it('answers a principal 429 past its own daily quotes from any address', async () => {
    const principal = liveWriter();
    for (let i = 0; i < 3; i++) expect((await h.postQuote(distinctQuote(), { principal, ip: nextIp() })).status).toBe(201);

    const fourth = await h.postQuote(distinctQuote(), { principal, ip: nextIp() });

    expect(fourth.status).toBe(429);
    expect(fourth.headers['ratelimit-policy']).toBe('"quotes-principal-day";q=3;w=86400');
    expect(fourth.body.error.message).toContain('3 new quotes per day for these credentials');
    // The refused quote went back on the address it would have counted on.
    expect(await h.quoteQuotas.perAddress.used(`4:198.51.100.${ips}`, NOW)).toBe(0);
  });

  it('leaves the RateLimit headers of a stored quote to the gateway\'s per-minute limit', async () => {
    const res = await h.postQuote(distinctQuote(), { principal: liveWriter(), ip: nextIp() });

    expect(res.status).toBe(201);
    expect(res.headers['ratelimit-policy']).toBeUndefined();
  });

  it('does not count a quote the catalog refused', async () => {
    const ip = nextIp();

    const refused = await h.postQuote({ organization_type: 'unternehmen', lines: [{ product: 'golden-polo', quantity: 1 }] }, { ip });

    expect(refused.status).toBe(422);
    expect(await h.quoteQuotas.perAddress.used(`4:${ip}`, NOW)).toBe(0);
  });
});

describe('the same quote asked for again', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness('budget-dedupe', { now: () => NOW, quoteQuotaLimits: { perPrincipal: 2, perAddress: 2 } });
  });
  afterAll(async () => {
    await h?.close();
  });

  it('answers the stored quote with the same id, stores one quote and counts it once', async () => {
    const ip = nextIp();
    const body: QuoteInput = { organization_type: 'verein', lines: [{ product: 'bio-polo-herren', quantity: 30, colors: ['Navy'] }] };

    const first = await h.postQuote(body, { ip });
    const again = await h.postQuote(body, { ip });
    const byTitle = await h.postQuote({ ...body, lines: [{ product: 'Bio Poloshirt Herren', quantity: 30, colors: ['navy'] }] }, { ip, principal: liveWriter() });

    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.body).toEqual(first.body);
    expect(byTitle.body.quote_id).toBe(first.body.quote_id);
    expect(await keysMatching(h.redis, `${h.prefix}quote:*`)).toHaveLength(1);
    expect(await keysMatching(h.redis, `${h.prefix}quote-digest:*`)).toHaveLength(1);
    expect(await h.quoteQuotas.perAddress.used(`4:${ip}`, NOW)).toBe(1);
  });

  it('answers the same quote past the day\'s quota, since it stores nothing', async () => {
    const ip = nextIp();
    const body: QuoteInput = { organization_type: 'gastro', lines: [{ product: 'bio-polo-herren', quantity: 55 }] };
    const made = await h.postQuote(body, { ip });
    await h.postQuote({ ...body, lines: [{ product: 'bio-polo-herren', quantity: 56 }] }, { ip });

    const again = await h.postQuote(body, { ip });
    const other = await h.postQuote({ ...body, lines: [{ product: 'bio-polo-herren', quantity: 57 }] }, { ip });

    expect(again.status).toBe(201);
    expect(again.body.quote_id).toBe(made.body.quote_id);
    expect(other.status).toBe(429);
  });

  it('makes a new quote for the same lines on the sandbox, which keeps its own', async () => {
    const body: QuoteInput = { organization_type: 'schule', lines: [{ product: 'bio-polo-herren', quantity: 3 }] };

    const live = await h.postQuote(body, { ip: nextIp() });
    const sandbox = await h.postQuote(body, { ip: nextIp(), principal: sandboxWriter(), sandbox: true });

    expect(sandbox.body.quote_id).not.toBe(live.body.quote_id);
  });
});

describe('what a quote costs Redis', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness('budget-quote-size');
  });
  afterAll(async () => {
    await h?.close();
  });

  it(`keeps a quote and its digest ${LIMITS.quoteLifetimeDays} days at most`, async () => {
    const res = await h.postQuote(distinctQuote(), { ip: nextIp() });

    const digests = await keysMatching(h.redis, `${h.prefix}quote-digest:*`);
    const quoteTtl = await h.redis.pttl(`${h.prefix}quote:{${res.body.quote_id}}`);
    const digestTtl = await h.redis.pttl(digests[0]!);
    expect(LIMITS.quoteLifetimeDays).toBeLessThanOrEqual(7);
    expect(quoteTtl).toBeGreaterThan(0);
    expect(quoteTtl).toBeLessThanOrEqual(WEEK_MS);
    expect(digestTtl).toBeGreaterThan(0);
    expect(digestTtl).toBeLessThanOrEqual(quoteTtl);
    expect(Date.parse(res.body.expires_at) - Date.parse(res.body.created_at)).toBeLessThanOrEqual(WEEK_MS);
  });

  it('stores the largest quote the schema allows (20 lines of 20 unlisted colors) compactly, each list once', async () => {
    const colorsOf = (i: number) => Array.from({ length: 20 }, (_, j) => `${`farbe-${i}-${j}-`.padEnd(60, 'x')}`);
    const body: QuoteInput = {
      organization_type: 'unternehmen',
      lines: Array.from({ length: 20 }, (_, i) => ({ product: 'bio-polo-herren', quantity: 1, decoration: 'stick' as const, colors: colorsOf(i) })),
    };

    const res = await h.postQuote(body, { ip: nextIp() });

    expect(res.status).toBe(201);
    const stored = (await h.redis.get(`${h.prefix}quote:{${res.body.quote_id}}`))!;
    const listed = res.body.warnings.join('\n').match(/listed: [^)]*\)/g) as string[];
    expect(listed.filter((l) => !l.startsWith('listed: as in'))).toHaveLength(1);
    // Each color the caller named is kept once, with a line and two sentences around each line's colors.
    const named = body.lines.flatMap((l) => l.colors ?? []).join('').length;
    expect(Buffer.byteLength(stored)).toBeLessThan(named + 20 * 600);
    expect(Buffer.byteLength(stored)).toBeLessThan(QUOTE_MAX_STORED_BYTES);
    expect(await h.redis.memory('USAGE', `${h.prefix}quote:{${res.body.quote_id}}`)).toBeLessThan(64 * 1024);
  });
});

describe('sandbox shop requests per address', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness('budget-sandbox', { now: () => NOW, quotaLimits: { sandboxPerAddress: 5 } });
  });
  afterAll(async () => {
    await h?.close();
  });

  it('refuses the address past its day however many free keys it spreads the requests over', async () => {
    const ip = nextIp();
    const keys = Array.from({ length: 10 }, () => sandboxWriter());
    const statuses: number[] = [];
    for (const principal of keys) statuses.push((await h.post(buildShopRequest(), { principal, sandbox: true, ip })).status);
    const before = await h.recordCount();

    const anonymous = await h.post(buildShopRequest(), { principal: null, sandbox: true, ip });
    const otherAddress = await h.post(buildShopRequest(), { principal: keys[9]!, sandbox: true, ip: nextIp() });

    expect(statuses).toEqual([201, 201, 201, 201, 201, 429, 429, 429, 429, 429]);
    expect(anonymous.status).toBe(429);
    expect(anonymous.body.error.message).toContain('5 sandbox shop requests per day from this address, whatever the credentials');
    expect(anonymous.headers['retry-after']).toBe('7200');
    expect(anonymous.headers['ratelimit-policy']).toBe('"shop-requests-sandbox-address-day";q=5;w=86400');
    expect(otherAddress.status).toBe(201);
    expect(await h.recordCount()).toBe(before + 1);
    // A refused request gave its principal's unit back: the key keeps its own day.
    expect(await h.quotas.sandbox.used(keys[5]!.id, NOW)).toBe(0);
  });

  it(`keeps a sandbox request ${LIMITS.quoteLifetimeDays} days at most`, async () => {
    const res = await h.post(buildShopRequest(), { principal: sandboxWriter(), sandbox: true, ip: nextIp() });

    const ttl = await h.redis.pttl(`${h.prefix}shop-request:${res.body.id}`);
    expect(ttl).toBeGreaterThan(WEEK_MS - 60_000);
    expect(ttl).toBeLessThanOrEqual(WEEK_MS);
  });
});

describe('live shop requests per contact domain', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness('budget-domain', { now: () => NOW });
  });
  afterAll(async () => {
    await h?.close();
  });

  const toDomain = (email: string) =>
    buildShopRequest({ organization: { name: 'TSV Musterstadt', type: 'verein', contact_name: 'Eva Muster', email } });

  it(`accepts ${LIMITS.liveShopRequestsPerDomainPerDay} a day to one domain from different principals, and answers the next 429 whatever the spelling`, async () => {
    const spellings = (i: number) => [`eva+${i}@catch-all.example`, `E.va${i}@Catch-All.example`, `eva${i}@catch-all.example`][i % 3]!;
    const statuses: number[] = [];
    for (let i = 0; i < LIMITS.liveShopRequestsPerDomainPerDay; i++) statuses.push((await h.post(toDomain(spellings(i)), { principal: liveWriter() })).status);
    const principal = liveWriter();
    const before = await h.recordCount();

    const next = await h.post(toDomain('someone.else+x@CATCH-ALL.example'), { principal });
    const otherDomain = await h.post(toDomain('eva@tsv-musterstadt.example'), { principal });

    expect(statuses).toEqual(Array.from({ length: LIMITS.liveShopRequestsPerDomainPerDay }, () => 201));
    expect(next.status).toBe(429);
    expect(next.body.error).toMatchObject({ code: 'rate_limited', status: 429 });
    expect(next.body.error.message).toContain(`${LIMITS.liveShopRequestsPerDomainPerDay} live shop requests per day for contacts at catch-all.example`);
    expect(next.body.error.hint).toContain('the count starts again at UTC midnight');
    expect(next.headers['retry-after']).toBe('7200');
    expect(next.headers['ratelimit-policy']).toBe(`"shop-requests-live-domain-day";q=${LIMITS.liveShopRequestsPerDomainPerDay};w=86400`);
    expect(otherDomain.status).toBe(201);
    expect(await h.recordCount()).toBe(before + 1);
    // The refused request gave its principal's unit back.
    expect(await h.quotas.live.used(principal.id, NOW)).toBe(1);
  });

  it('does not count a refused request on its domain', async () => {
    const principal = liveWriter();
    const invalid = buildShopRequest({
      organization: { name: 'Muster GmbH', type: 'unternehmen', contact_name: 'Max', email: 'max@refused.example' },
      products: [{ product: 'no-such-thing' }],
    });

    const res = await h.post(invalid, { principal });

    expect(res.status).toBe(422);
    const domainCounts = await keysMatching(h.redis, `${h.prefix}quota:shop-requests-live-domain:*`);
    const units = await Promise.all(domainCounts.map((key) => h.redis.hlen(key)));
    // Only the catch-all domain and tsv-musterstadt.example of the test before have units.
    expect(units.sort((a, b) => a - b)).toEqual([1, LIMITS.liveShopRequestsPerDomainPerDay]);
  });
});

// The internal request list holds one entry per shop request, however many
// runs of its job reach the last step.
import { createTestRedis, type TestRedis } from '@msa/test-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createIntakeStore } from '../src/store/intake-store.js';

let tr: TestRedis;
beforeAll(async () => {
  tr = await createTestRedis('intake-list');
});
afterAll(async () => {
  await tr?.cleanup();
});

describe('the request list entry of a shop request', () => {
  it('is appended once when two runs of one job append it at the same time', async () => {
    const store = createIntakeStore(tr.redis, tr.prefix);

    const ids = await Promise.all(Array.from({ length: 5 }, () => store.appendListEntry('req_00000000000000a1', { request_id: 'req_00000000000000a1', shop_name: 'TSV' })));
    const other = await store.appendListEntry('req_00000000000000a2', { request_id: 'req_00000000000000a2', shop_name: 'FC' });

    expect(new Set(ids).size).toBe(1);
    expect(other).not.toBe(ids[0]);
    expect((await store.readList(10)).map((e) => e.fields.request_id).sort()).toEqual(['req_00000000000000a1', 'req_00000000000000a2']);
  });

  it('drops entries older than the retention as a new one arrives, and keeps younger ones', async () => {
    const prefix = `${tr.prefix}retention:`;
    const store = createIntakeStore(tr.redis, prefix, undefined, 3_600_000);
    const list = `${prefix}intake:list`;
    const now = Date.now();
    await tr.redis.xadd(list, `${now - 2 * 3_600_000}-0`, 'request_id', 'req_0000000000000old');
    await tr.redis.xadd(list, `${now - 600_000}-0`, 'request_id', 'req_00000000000young');

    await store.appendListEntry('req_0000000000000new', { request_id: 'req_0000000000000new', shop_name: 'SV' });

    const kept = (await store.readList(10)).map((e) => e.fields.request_id);
    expect(kept).toContain('req_00000000000young');
    expect(kept).toContain('req_0000000000000new');
    expect(kept).not.toContain('req_0000000000000old');
  });
});

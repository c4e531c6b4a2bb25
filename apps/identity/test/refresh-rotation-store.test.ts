// A grant remembers the refresh tokens it has used, so a stolen one that
// comes back revokes the family; it remembers a bounded number, so a client
// refreshing all day cannot grow one key without end.
import { createTestRedis, type TestRedis } from '@msa/test-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOAuthStore, digest, USED_REFRESH_KEPT, type Grant } from '../src/oauth/store/oauth-store.js';

let tr: TestRedis;
beforeAll(async () => {
  tr = await createTestRedis('refresh-rotation-store');
});
afterAll(async () => {
  await tr?.cleanup();
});

const grant = (grant_id: string): Grant => ({
  grant_id,
  client_id: 'https://client.example/meta.json',
  client_name: 'Client',
  scopes: ['catalog:read'],
  resource: 'http://localhost:8080',
  sandbox: false,
  approval: { email: 'erika@example.org', mode: 'live' },
  created_at: new Date().toISOString(),
});

describe('the used refresh tokens of a grant', () => {
  it('keeps the last 100 however often the grant is refreshed, and a recent one still revokes the family', async () => {
    const store = createOAuthStore(tr.redis, tr.prefix);
    await store.createGrant(grant('gCapped'), digest('rt-0'));
    const rotations = USED_REFRESH_KEPT + 20;
    for (let i = 0; i < rotations; i++) expect(await store.rotateRefresh('gCapped', digest(`rt-${i}`), digest(`rt-${i + 1}`), 'sealed', 0)).toEqual({ kind: 'rotated' });

    const used = `${tr.prefix}grant:{gCapped}:used`;
    expect(await tr.redis.llen(used)).toBe(USED_REFRESH_KEPT);
    expect(await tr.redis.ttl(used)).toBeGreaterThan(0);
    expect(await store.rotateRefresh('gCapped', digest('rt-0'), digest('x'), 'sealed', 0)).toEqual({ kind: 'unknown' });
    expect(await store.grantActive('gCapped')).toBe(true);
    expect(await store.rotateRefresh('gCapped', digest(`rt-${rotations - 1}`), digest('y'), 'sealed', 0)).toEqual({ kind: 'reused' });
    expect(await store.grantActive('gCapped')).toBe(false);
  });

  it('takes over the set an earlier version wrote: a token used before the upgrade still revokes the family', async () => {
    const store = createOAuthStore(tr.redis, tr.prefix);
    await store.createGrant(grant('gOld'), digest('rt-2'));
    const used = `${tr.prefix}grant:{gOld}:used`;
    await tr.redis.sadd(used, digest('rt-0'), digest('rt-1'));
    await tr.redis.expire(used, 3600);

    expect(await store.rotateRefresh('gOld', digest('rt-2'), digest('rt-3'), 'sealed', 0)).toEqual({ kind: 'rotated' });
    expect(await tr.redis.type(used)).toBe('list');
    expect(await tr.redis.llen(used)).toBe(3);
    expect(await store.rotateRefresh('gOld', digest('rt-1'), digest('z'), 'sealed', 0)).toEqual({ kind: 'reused' });
    expect(await store.grantActive('gOld')).toBe(false);
  });

  it('answers the token rotated last again within the grace with its sealed successor, and revokes for it once a newer rotation happened', async () => {
    const store = createOAuthStore(tr.redis, tr.prefix);
    await store.createGrant(grant('gGrace'), digest('rt-0'));

    expect(await store.rotateRefresh('gGrace', digest('rt-0'), digest('rt-1'), 'sealed-rt-1', 60_000)).toEqual({ kind: 'rotated' });
    expect(await store.rotateRefresh('gGrace', digest('rt-0'), digest('other'), 'sealed-other', 60_000)).toEqual({ kind: 'grace', sealedSuccessor: 'sealed-rt-1' });
    expect(await tr.redis.hget(`${tr.prefix}grant:{gGrace}`, 'refresh')).toBe(digest('rt-1'));
    expect(await store.rotateRefresh('gGrace', digest('rt-1'), digest('rt-2'), 'sealed-rt-2', 60_000)).toEqual({ kind: 'rotated' });
    expect(await store.rotateRefresh('gGrace', digest('rt-0'), digest('late'), 'sealed-late', 60_000)).toEqual({ kind: 'reused' });
    expect(await store.grantActive('gGrace')).toBe(false);
  });
});

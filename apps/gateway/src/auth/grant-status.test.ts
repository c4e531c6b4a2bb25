import type { CallContext, IdentityClient } from '@msa/contracts';
import { describe, expect, it } from 'vitest';
import { createGrantStatus } from './grant-status.js';

const systemCtx = (): CallContext => ({ principal: null, sandbox: false, ip: '127.0.0.1', request_id: 'test' });
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Identity's grant status, answering `active` for every grant in `activeGrants`. */
function identityKnowing(activeGrants: Set<string>) {
  const asked: string[] = [];
  const identity = {
    grantStatus: async (_ctx: CallContext, grant: string) => {
      asked.push(grant);
      return { active: activeGrants.has(grant) };
    },
  } as unknown as IdentityClient;
  return { identity, asked };
}

describe('createGrantStatus', () => {
  it('asks identity once for concurrent questions about one grant', async () => {
    const { identity, asked } = identityKnowing(new Set(['g1']));
    const grantActive = createGrantStatus({ identity, systemCtx, ttlMs: 60_000 });

    expect(await Promise.all([grantActive('g1'), grantActive('g1')])).toEqual([true, true]);
    expect(await grantActive('g1')).toBe(true);
    expect(asked).toEqual(['g1']);
  });

  it('asks again about an active grant once its TTL has passed, so a revocation is seen', async () => {
    const active = new Set(['g1']);
    const { identity, asked } = identityKnowing(active);
    const grantActive = createGrantStatus({ identity, systemCtx, ttlMs: 1 });
    expect(await grantActive('g1')).toBe(true);
    active.delete('g1');
    await pause(5);

    expect(await grantActive('g1')).toBe(false);
    expect(asked).toEqual(['g1', 'g1']);
  });

  it('remembers a revoked grant without asking again, however long it has been', async () => {
    const { identity, asked } = identityKnowing(new Set());
    const grantActive = createGrantStatus({ identity, systemCtx, ttlMs: 1 });
    expect(await grantActive('g2')).toBe(false);
    await pause(5);

    expect(await grantActive('g2')).toBe(false);
    expect(asked).toEqual(['g2']);
  });

  it('believes a grant revoked at once when told, before its active answer expires, and asks identity no more', async () => {
    const { identity, asked } = identityKnowing(new Set(['g4']));
    const grantActive = createGrantStatus({ identity, systemCtx, ttlMs: 60_000 });
    expect(await grantActive('g4')).toBe(true);

    grantActive.revoked('g4');

    expect(await grantActive('g4')).toBe(false);
    expect(asked).toEqual(['g4']);
  });
});

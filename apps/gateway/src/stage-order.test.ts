import { createInternalSigner, createMetrics } from '@msa/service-kit';
import { testLogger } from '@msa/test-kit';
import { describe, expect, it } from 'vitest';
import { memoryFailureLimiter, memoryWindowLimiter } from '../test/build-exchange.js';
import { createStages } from './app.js';
import type { Field } from './stages/exchange.js';

function stages() {
  const nowhere = 'http://127.0.0.1:9';
  return createStages({
    logger: testLogger('gateway'),
    metrics: createMetrics('gateway'),
    publicBaseUrl: 'http://api.test.local',
    trustProxy: 'loopback',
    upstreams: { catalog: nowhere, shops: nowhere, requests: nowhere, identity: nowhere, mcp: nowhere },
    upstreamTimeoutMs: 1_000,
    sign: createInternalSigner('a'.repeat(64)),
    resolveKey: async () => null,
    verifyToken: async () => {
      throw new Error('no tokens in this test');
    },
    limiters: { principal: memoryWindowLimiter('per-minute', 300), anonymous: memoryWindowLimiter('anonymous-per-minute', 60), failedAuth: memoryFailureLimiter(30) },
    docs: (_req, _res, next) => next(),
  });
}

describe('the gateway pipeline', () => {
  it('runs its stages in this order', () => {
    expect(stages().map((s) => s.name)).toEqual([
      'resolve',
      'cors',
      'failed-auth-budget',
      'authenticate',
      'in-flight',
      'mcp-handshake',
      'admit',
      'authorize-budget',
      'unrouted',
      'deprecation',
      'erasure',
      'forward',
    ]);
  });

  it('runs every stage that reads a field after the stage that writes it', () => {
    const writtenBy = new Map<Field, string>();
    const unwritten: string[] = [];
    for (const { name, handoff } of stages()) {
      for (const field of handoff.reads) if (!writtenBy.has(field)) unwritten.push(`${name} reads ${field}`);
      for (const field of handoff.writes) {
        // One writer per field: a second would make the hand-off depend on order twice over.
        expect(writtenBy.get(field), `${field} written by ${writtenBy.get(field)} and ${name}`).toBeUndefined();
        writtenBy.set(field, name);
      }
    }

    expect(unwritten).toEqual([]);
  });

  it('has authenticate hand the principal and any refusal to in-flight and admit', () => {
    const order = stages();
    const at = (name: string) => order.findIndex((s) => s.name === name);
    const authenticate = order[at('authenticate')]!;

    expect(authenticate.handoff.writes).toEqual(expect.arrayContaining(['principal', 'refusal']));
    expect(at('in-flight')).toBeGreaterThan(at('authenticate'));
    expect(at('admit')).toBeGreaterThan(at('authenticate'));
    expect(order[at('admit')]!.handoff.reads).toContain('refusal');
  });
});

// The gateway's dependencies as its component tests build them: real Redis
// limiters under the test file's prefix, no credentials unless a test says so.
import { createInternalSigner, createMetrics } from '@msa/service-kit';
import { createFailureLimiter, createWindowLimiter } from '@msa/service-kit/limits';
import { TEST_INTERNAL_SECRET, testLogger, type TestRedis } from '@msa/test-kit';
import express from 'express';
import type { GatewayDeps, UpstreamName } from '../src/app.js';

export interface LimitPoints {
  principal?: number;
  anonymous?: number;
  failedAuth?: number;
  /** Adds the MCP handshake limiter when set. */
  mcpHandshake?: number;
}

/** Deps with every upstream at `upstreams` (one URL for all, or one each); `overrides` win. */
export function testGatewayDeps(
  tr: TestRedis,
  upstreams: string | Record<UpstreamName, string>,
  points: LimitPoints = {},
  overrides: Partial<GatewayDeps> = {},
): GatewayDeps {
  const limiter = (name: string, policy: string, p: number) =>
    createWindowLimiter({ redis: tr.redis, keyPrefix: `${tr.prefix}rl:${name}`, policy, points: p, windowSeconds: 60 });
  return {
    logger: testLogger('gateway'),
    metrics: createMetrics('gateway'),
    publicBaseUrl: 'http://api.test.local',
    trustProxy: 'false',
    upstreams: typeof upstreams === 'string' ? { catalog: upstreams, shops: upstreams, requests: upstreams, identity: upstreams, mcp: upstreams } : upstreams,
    upstreamTimeoutMs: 2_000,
    sign: createInternalSigner(TEST_INTERNAL_SECRET),
    // Credentials are covered by the system tests against the real identity service.
    resolveKey: async () => null,
    verifyToken: async () => {
      throw new Error('no tokens in these tests');
    },
    limiters: {
      principal: limiter('p', 'per-minute', points.principal ?? 300),
      anonymous: limiter('a', 'anonymous-per-minute', points.anonymous ?? 60),
      failedAuth: createFailureLimiter({ redis: tr.redis, keyPrefix: `${tr.prefix}rl:f`, policy: 'failed-auth', points: points.failedAuth ?? 30, windowSeconds: 60 }),
      ...(points.mcpHandshake ? { mcpHandshake: limiter('hs', 'mcp-handshake', points.mcpHandshake) } : {}),
    },
    docs: express.Router(),
    ready: async () => undefined,
    ...overrides,
  };
}

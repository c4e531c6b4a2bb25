// /readyz must not call a service ready whose client cannot serve its keys.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRedis, pingRedis } from '../src/redis.js';
import { redisNode, type RedisNode } from './redis-node.js';

describe('pingRedis with a single-node client', () => {
  let node: RedisNode;
  let port: number;

  beforeAll(async () => {
    node = await redisNode(['--cluster-enabled', 'yes']);
    port = node.port;
  });

  afterAll(async () => {
    await node?.remove();
  });

  it('refuses readiness on a Cluster node, naming REDIS_CLUSTER_NODES, although the node answers PING', async () => {
    const client = createRedis(`redis://127.0.0.1:${port}`, 'api');

    const pong = await client.ping();
    const ready = await pingRedis(client).then(() => 'ready', (err: Error) => err.message);
    client.disconnect();

    expect(pong).toBe('PONG');
    expect(ready).toContain('REDIS_CLUSTER_NODES');
  });

  it('is ready on a plain Redis', async () => {
    const client = createRedis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', 'api');

    await expect(pingRedis(client)).resolves.toBeUndefined();
    client.disconnect();
  });
});

// @module `RedisClient`: the client type of any topology (`Redis` or `Cluster`), below both the connection factory and the replication barrier
import type { Cluster, Redis } from 'ioredis';

/** A client of any topology: one node or Sentinel-followed (`Redis`), or a `Cluster`. */
export type RedisClient = Redis | Cluster;

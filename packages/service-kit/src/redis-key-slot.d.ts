// @module Types for `cluster-key-slot`, ioredis's own slot function, which ships none
declare module 'cluster-key-slot' {
  /** The Redis Cluster hash slot of a key (CRC16 of its `{hash tag}` or whole name, mod 16384). */
  export default function calculateSlot(key: string | Buffer): number;
}

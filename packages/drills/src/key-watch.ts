// Strikes at a chosen moment instead of a random one: Redis keyspace
// notifications tell the drill the instant a service wrote a key (a shop
// request record, a credential), and the fault follows within a millisecond
// or two, while the service is still between that write and its answer.
import { Redis } from 'ioredis';

export interface KeyWatch {
  /** The next matching write from now on; undefined when none came within `timeoutMs`. */
  next(timeoutMs: number): Promise<string | undefined>;
  close(): void;
}

export async function watchKeys(redisUrl: string, pattern: string, events: string[]): Promise<KeyWatch> {
  const sub = new Redis(redisUrl, { lazyConnect: true, maxRetriesPerRequest: null });
  sub.on('error', () => undefined);
  await sub.connect();
  const channelPrefix = '__keyspace@0__:';
  await sub.psubscribe(`${channelPrefix}${pattern}`);
  let waiter: ((key: string) => void) | undefined;
  sub.on('pmessage', (_pattern: string, channel: string, event: string) => {
    if (events.includes(event)) waiter?.(channel.slice(channelPrefix.length));
  });
  return {
    next(timeoutMs) {
      return new Promise((resolve) => {
        const timer = setTimeout(() => {
          waiter = undefined;
          resolve(undefined);
        }, timeoutMs);
        waiter = (key) => {
          clearTimeout(timer);
          waiter = undefined;
          resolve(key);
        };
      });
    },
    close() {
      sub.disconnect();
    },
  };
}

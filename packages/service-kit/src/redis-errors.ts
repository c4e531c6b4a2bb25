// @module `isRedisUnavailable(err)`: whether an error means Redis cannot be reached right now (ioredis's retry, connection, offline-queue, timeout and cluster errors, `LOADING`, `CLUSTERDOWN`), without loading ioredis
// Which errors mean "Redis cannot be reached right now". Apart from redis.ts
// so that the error handler every service uses can ask without loading ioredis.

const UNAVAILABLE_ERROR_NAMES = new Set(['MaxRetriesPerRequestError', 'ClusterAllFailedError']);
// Plain `Error`s ioredis raises when it has no usable connection; it gives
// them no class or code of their own, so their fixed messages are all there is.
const UNAVAILABLE_MESSAGES = [
  'Connection is closed.',
  'Command timed out',
  "Stream isn't writeable and enableOfflineQueue options is false",
  "Cluster isn't ready and enableOfflineQueue options is false",
  'None of startup nodes is available',
  'Cluster is disconnected.',
  'Command aborted due to connection close',
  'Socket timeout.',
  'connect ETIMEDOUT',
  // A Cluster client gives up on a slot whose master is gone for longer than
  // its redirections allow (maxRedirections × retryDelayOnFailover): a failover
  // still under way.
  'Too many Cluster redirections.',
];
// Replies a healthy command gets while Redis loads its data, fails over or
// reshards: the same command succeeds a moment later.
const TRANSIENT_REPLY = /^(LOADING|BUSY|CLUSTERDOWN|TRYAGAIN|MASTERDOWN|READONLY|MOVED|ASK)\b/;
const CONNECTION_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);

/**
 * Whether `err` says Redis cannot be reached right now (connection refused or
 * lost, retries or command timeout exhausted, offline queue refused, cluster
 * down, dataset loading): a fault worth retrying, answered with 503.
 */
export function isRedisUnavailable(err: unknown): boolean {
  let e: unknown = err;
  // A cluster error carries the node's error; a wrapper its cause.
  for (let depth = 0; e instanceof Error && depth < 3; depth++) {
    const { name, message } = e;
    if (UNAVAILABLE_ERROR_NAMES.has(name)) return true;
    // ioredis's ReplyError (redis-errors) is named after its class; the name
    // spares loading ioredis for an instanceof.
    if (name === 'ReplyError') {
      // A transaction a failover aborted names the errors of its commands.
      const previous = (e as { previousErrors?: unknown[] }).previousErrors;
      if (message.startsWith('EXECABORT') && Array.isArray(previous)) return previous.some((p) => isRedisUnavailable(p));
      return TRANSIENT_REPLY.test(message);
    }
    const code = (e as NodeJS.ErrnoException).code;
    if (typeof code === 'string' && CONNECTION_CODES.has(code)) return true;
    if (UNAVAILABLE_MESSAGES.some((m) => message.startsWith(m))) return true;
    e = (e as { lastNodeError?: unknown }).lastNodeError ?? e.cause;
  }
  return false;
}

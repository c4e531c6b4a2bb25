import net from 'node:net';

const LOOPBACK = /^(127\.|::1$|::ffff:127\.|localhost$)/;

/**
 * Makes any TCP connection to a non-loopback address throw, so a test that
 * forgets a stub and reaches for the internet fails loudly. Call it from a
 * vitest setup file.
 */
export function refuseNonLoopbackConnections(): void {
  const original = net.Socket.prototype.connect;
  net.Socket.prototype.connect = function patched(this: net.Socket, ...args: unknown[]) {
    const first = args[0];
    const host =
      first && typeof first === 'object' && !Array.isArray(first)
        ? ((first as net.TcpNetConnectOpts).host ?? ((first as net.IpcNetConnectOpts).path ? 'ipc' : 'localhost'))
        : typeof args[1] === 'string'
          ? args[1]
          : typeof first === 'string' && !/^\d+$/.test(first)
            ? 'ipc'
            : 'localhost';
    if (host !== 'ipc' && !LOOPBACK.test(host)) {
      throw new Error(`Tests may only connect to loopback addresses, not ${host}`);
    }
    return (original as (...a: unknown[]) => net.Socket).apply(this, args);
  } as typeof original;
}

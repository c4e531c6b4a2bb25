import net from 'node:net';
import { describe, expect, it } from 'vitest';
import { refuseNonLoopbackConnections } from '../src/network.js';

describe('refuseNonLoopbackConnections', () => {
  refuseNonLoopbackConnections();

  it('throws on a connection to a public address', () => {
    expect(() => net.connect({ host: '93.184.216.34', port: 80 })).toThrow(/only connect to loopback/);
  });

  it('still allows loopback connections', async () => {
    const server = net.createServer((s) => s.end());
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    const port = (server.address() as net.AddressInfo).port;

    const connected = await new Promise<boolean>((resolve) => {
      const socket = net.connect({ host: '127.0.0.1', port }, () => {
        socket.end();
        resolve(true);
      });
      socket.on('error', () => resolve(false));
    });

    expect(connected).toBe(true);
    server.close();
  });
});

describe('refuseNonLoopbackConnections with names', () => {
  refuseNonLoopbackConnections();

  it('fails a connection whose name resolves off the machine', async () => {
    const error = await new Promise<Error | null>((resolve) => {
      const socket = net.connect({
        host: 'far-away.example.test',
        port: 80,
        lookup: (_h, o, cb) =>
          o.all
            ? (cb as (e: null, a: { address: string; family: number }[]) => void)(null, [{ address: '93.184.216.34', family: 4 }])
            : (cb as (e: null, a: string, f: number) => void)(null, '93.184.216.34', 4),
      });
      socket.on('error', resolve);
      socket.on('connect', () => resolve(null));
    });

    expect(error?.message).toMatch(/only connect to loopback/);
  });

  it('lets a name pinned to a loopback address through', async () => {
    const server = net.createServer((s) => s.end());
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    const port = (server.address() as net.AddressInfo).port;

    const connected = await new Promise<boolean>((resolve) => {
      const socket = net.connect({
        host: 'logos.example.test',
        port,
        lookup: (_h, o, cb) =>
          o.all
            ? (cb as (e: null, a: { address: string; family: number }[]) => void)(null, [{ address: '127.0.0.1', family: 4 }])
            : (cb as (e: null, a: string, f: number) => void)(null, '127.0.0.1', 4),
      });
      socket.on('connect', () => {
        socket.end();
        resolve(true);
      });
      socket.on('error', () => resolve(false));
    });

    expect(connected).toBe(true);
    server.close();
  });
});

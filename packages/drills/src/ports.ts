import { createServer } from 'node:net';
import { freePort } from '@msa/test-kit';

export { freePort };

function isFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = createServer();
    srv.unref();
    srv.once('error', () => resolve(false));
    srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
  });
}

/** A free port whose cluster bus port (port + 10000) is free too, for a Redis Cluster node. */
export async function freeClusterPort(): Promise<number> {
  for (;;) {
    const port = await freePort();
    if (port + 10_000 <= 65_535 && (await isFree(port + 10_000))) return port;
  }
}

/** `count` distinct free ports. */
export async function freePorts(count: number): Promise<number[]> {
  const ports: number[] = [];
  while (ports.length < count) {
    const port = await freePort();
    if (!ports.includes(port)) ports.push(port);
  }
  return ports;
}

// Ports for the drills' own processes, chosen before those processes start.
// They come from below Linux's ephemeral range (32768-60999 by default): a
// port handed out there can be taken, between the choice and the process's
// bind, by any listener on port 0 or any outgoing connection's source port
// (the suites running beside the drills open hundreds), and the service then
// fails to start while another process answers on its port. Cluster nodes
// also need port + 10000 free, which stays below the range too.
import { randomInt } from 'node:crypto';
import { createServer } from 'node:net';

const LOW = 10_000;
const HIGH = 22_000;

function isFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = createServer();
    srv.unref();
    srv.once('error', () => resolve(false));
    srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
  });
}

/** A free port below the ephemeral range. */
export async function freePort(): Promise<number> {
  for (;;) {
    const port = LOW + randomInt(HIGH - LOW);
    if (await isFree(port)) return port;
  }
}

/** A free port whose cluster bus port (port + 10000) is free too, for a Redis Cluster node. */
export async function freeClusterPort(): Promise<number> {
  for (;;) {
    const port = await freePort();
    if (await isFree(port + 10_000)) return port;
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

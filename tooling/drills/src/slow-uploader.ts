// Slow uploads from a process of their own. Run from the test process, the
// attacker's hundreds of sockets, closes and reconnects would share one
// event loop with the caller whose latency the drill measures, and every
// burst of closes would be counted as the gateway's delay.
import { spawn } from 'node:child_process';

const UPLOADER = `
const net = require('node:net');
const [port, until, trickleMs, pauseMs, rampMs] = process.argv.slice(1).map(Number);
let input = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk) => (input += chunk));
process.stdin.on('end', async () => {
  const tally = {};
  const one = (head) => new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    let answer = '';
    const timer = setInterval(() => socket.write('x'), trickleMs);
    const stop = setTimeout(() => socket.destroy(), Math.max(0, until - Date.now()));
    socket.setEncoding('utf8');
    socket.on('data', (chunk) => (answer += chunk));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearInterval(timer);
      clearTimeout(stop);
      resolve(Number((/^HTTP\\/1\\.1 (\\d{3})/.exec(answer) || [])[1] || 0));
    });
    socket.write(head);
  });
  const loop = async (head, i, all) => {
    await new Promise((r) => setTimeout(r, (i * rampMs) / all.length));
    while (Date.now() < until) {
      const status = await one(head);
      tally[status] = (tally[status] || 0) + 1;
      await new Promise((r) => setTimeout(r, pauseMs));
    }
  };
  await Promise.all(JSON.parse(input).map(loop));
  process.stdout.write(JSON.stringify(tally));
});
`;

export interface SlowUploads {
  /** Gateway port on 127.0.0.1. */
  port: number;
  /** Each upload's request line and headers, ending in the blank line; one connection each at a time. */
  heads: string[];
  /** Epoch ms when every upload stops. */
  until: number;
  /** One body byte this often. */
  trickleMs: number;
  /** How long an upload waits after its connection closes before it opens the next. */
  pauseMs: number;
  /** The uploads open one after another over this long, as connections from many clients would, not in one instant. */
  rampMs: number;
}

/**
 * Runs `heads.length` uploads, opened over `rampMs`, that each send their
 * head, then one body byte every `trickleMs`, and open again `pauseMs` after
 * the gateway closes them, until `until`. Resolves with what they got, by status (0: the connection
 * closed without an answer).
 */
export async function runSlowUploads({ port, heads, until, trickleMs, pauseMs, rampMs }: SlowUploads): Promise<Map<number, number>> {
  const child = spawn(process.execPath, ['-e', UPLOADER, ...[port, until, trickleMs, pauseMs, rampMs].map(String)], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  child.stdin.end(JSON.stringify(heads));
  const code = await exited;
  if (code !== 0) throw new Error(`the slow uploader exited with code ${code}: ${output}`);
  return new Map(Object.entries(JSON.parse(output) as Record<string, number>).map(([status, n]) => [Number(status), n]));
}

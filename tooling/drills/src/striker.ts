// Signals processes the instant Redis reports a write to a chosen key. The
// test process is too busy (dozens of requests in flight, e-mails being
// parsed) to react within the millisecond or two a service needs to finish
// answering; a separate process that does nothing else, speaking RESP on a
// bare socket, lands the SIGKILL inside that window.
import { spawn } from 'node:child_process';

const STRIKER = `
const net = require('node:net');
const [port, pattern, wanted, ...signals] = process.argv.slice(1);
const resp = (...args) => '*' + args.length + '\\r\\n' + args.map((a) => '$' + Buffer.byteLength(a) + '\\r\\n' + a + '\\r\\n').join('');
const socket = net.createConnection({ host: '127.0.0.1', port: Number(port) });
socket.on('connect', () => socket.write(resp('PSUBSCRIBE', pattern)));
socket.on('error', (err) => { process.stdout.write('error ' + err.message + '\\n'); process.exit(1); });
let armed = false;
let seen = '';
socket.on('data', (chunk) => {
  seen += chunk.toString('latin1');
  if (!armed) {
    if (!seen.includes('psubscribe')) return;
    armed = true;
    seen = '';
    process.stdout.write('armed\\n');
    return;
  }
  // *4 $8 pmessage $n <pattern> $n <channel> $n <event>
  const parts = seen.split('\\r\\n');
  const at = parts.indexOf('pmessage');
  if (at < 0 || parts.length < at + 8) return;
  const channel = parts[at + 4];
  const event = parts[at + 6];
  seen = parts.slice(at + 7).join('\\r\\n');
  if (event !== wanted) return;
  for (const s of signals) {
    const [signal, pid] = s.split(':');
    try { process.kill(Number(pid), signal); } catch {}
  }
  process.stdout.write('struck ' + channel.replace('__keyspace@0__:', '') + '\\n');
  process.exit(0);
});
`;

export interface Strike {
  pid: number;
  signal: NodeJS.Signals;
}

/**
 * Sends `strikes` (in order) right after the next keyspace event `event`
 * (`hset`, `set`) on `pattern` (a full `__keyspace@0__:…` glob), or after
 * `timeoutMs` regardless. Resolves with the key whose write triggered it,
 * once the striker is gone.
 */
export async function strikeAfterNextWrite(
  redisPort: number,
  pattern: string,
  event: string,
  strikes: Strike[],
  timeoutMs: number,
): Promise<string> {
  const args = [String(redisPort), pattern, event, ...strikes.map((s) => `${s.signal}:${s.pid}`)];
  const child = spawn(process.execPath, ['-e', STRIKER, ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const timer = setTimeout(() => {
    for (const s of strikes) {
      try {
        process.kill(s.pid, s.signal);
      } catch {
        // already gone
      }
    }
    child.kill('SIGKILL');
  }, timeoutMs);
  await exited;
  clearTimeout(timer);
  const struck = /struck (.+)/.exec(output)?.[1];
  return struck ? `right after ${struck} was written` : `after ${timeoutMs} ms without a write to ${pattern} (${output.trim() || 'striker silent'})`;
}

// The slow-uploads attack, one procedure for the drill (which checks that
// every read and token is answered) and `pnpm bench` budget 5 (which judges
// how fast). 300 uploads send their body one byte every few seconds: POST
// /v1/shop-requests with free sandbox keys and POST /v1/keys without
// credentials from several addresses, each opened again shortly after the
// gateway closes it, as a persistent attacker would. Meanwhile another
// caller reads the catalog with its own key and takes tokens at
// /oauth/token. The gateway must trust X-Forwarded-For (TRUST_PROXY).
//
// The uploads run in a process of their own (this file, run as a script):
// from the measuring process, their hundreds of sockets, closes and
// reconnects would share one event loop with the reader, and every burst of
// them would be counted as the gateway's delay. They open over RAMP_MS, as
// many clients' connections would, not in one instant.
import { spawn } from 'node:child_process';
import net from 'node:net';
import { fileURLToPath } from 'node:url';

const self = fileURLToPath(import.meta.url);

export const SLOW_UPLOADS = {
  uploads: 300,
  attackerKeys: 6,
  attackerAddresses: 5,
  /** The body arrives one byte this often: no pause is long enough for an idle timer. */
  trickleMs: 3_000,
  /** Longer than the ramp and the gateway's body deadline (15 s by default) together, so uploads are cut by it within the attack. */
  attackMs: 20_000,
  baselineMs: 5_000,
  rampMs: 2_000,
  /** An upload opens again this long after the gateway closed it. */
  pauseMs: 1_000,
  /** The reads stop this long before the uploads end: the uploader then drops all its sockets at once, a burst of closes that is not a slow upload. */
  teardownMarginMs: 1_000,
  /** About 8 reads a second: the reader stays inside its 300 a minute throughout. */
  readIntervalMs: 100,
  /** A read or token that takes longer counts as not answered (status 0): the stall this guards against was 25 s. */
  readDeadlineMs: 5_000,
};

async function createKey(baseUrl, ip, name) {
  const res = await fetch(`${baseUrl}/v1/keys`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-forwarded-for': ip },
    body: JSON.stringify({ name, email: 'drill@example.org', mode: 'sandbox' }),
  });
  const body = await res.json();
  if (res.status !== 201) throw new Error(`POST /v1/keys answered ${res.status}: ${JSON.stringify(body)}`);
  return body;
}

function uploadHead(path, headers) {
  const lines = Object.entries({ Host: '127.0.0.1', 'Content-Type': 'application/json', 'Content-Length': '4096', ...headers }).map(([k, v]) => `${k}: ${v}`);
  return `POST ${path} HTTP/1.1\r\n${lines.join('\r\n')}\r\n\r\n`;
}

/** Reads the catalog one request after another, every readIntervalMs, until `until`. */
async function readCatalog(baseUrl, apiKey, until) {
  const reads = [];
  while (Date.now() < until) {
    const started = performance.now();
    let status = 0;
    try {
      const res = await fetch(`${baseUrl}/v1/products?limit=5`, { headers: { authorization: `Bearer ${apiKey}` }, signal: AbortSignal.timeout(SLOW_UPLOADS.readDeadlineMs) });
      await res.arrayBuffer();
      status = res.status;
    } catch {
      status = 0;
    }
    reads.push({ status, ms: performance.now() - started });
    await new Promise((r) => setTimeout(r, SLOW_UPLOADS.readIntervalMs));
  }
  return reads;
}

async function token(baseUrl, credentials) {
  try {
    const res = await fetch(`${baseUrl}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-forwarded-for': '192.0.2.200' },
      body: new URLSearchParams({ grant_type: 'client_credentials', client_id: credentials.client_id, client_secret: credentials.client_secret }).toString(),
      signal: AbortSignal.timeout(SLOW_UPLOADS.readDeadlineMs),
    });
    await res.arrayBuffer();
    return res.status;
  } catch {
    return 0;
  }
}

/** The 99th percentile of the reads' durations, in ms. */
export function p99(reads) {
  const sorted = reads.map((r) => r.ms).sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(sorted.length * 0.99) - 1)];
}

/**
 * Runs the attack against the gateway at `baseUrl`: keys for the reader and
 * the attackers, the reader's baseline, then the uploads with the reader and
 * the token taker beside them.
 */
export async function slowUploadAttack(baseUrl) {
  const s = SLOW_UPLOADS;
  const reader = await createKey(baseUrl, '192.0.2.200', 'reader');
  const attackers = await Promise.all(Array.from({ length: s.attackerKeys }, (_, i) => createKey(baseUrl, `198.51.100.${100 + i}`, `attacker-${i}`)));
  // Warm the reader's key and connection before measuring.
  await readCatalog(baseUrl, reader.api_key, Date.now() + 500);

  const baseline = await readCatalog(baseUrl, reader.api_key, Date.now() + s.baselineMs);
  const until = Date.now() + s.attackMs;
  // Half with keys, half without: per key and per address alike.
  const heads = Array.from({ length: s.uploads }, (_, i) =>
    i % 2 === 0
      ? uploadHead('/v1/shop-requests', { Authorization: `Bearer ${attackers[(i / 2) % s.attackerKeys].api_key}` })
      : uploadHead('/v1/keys', { 'X-Forwarded-For': `203.0.113.${10 + (i % s.attackerAddresses)}` }),
  );
  const uploads = runSlowUploads({ port: Number(new URL(baseUrl).port), heads, until });
  // Once all the uploads are open, the reader reads and takes tokens.
  await new Promise((r) => setTimeout(r, s.rampMs + 500));
  const tokens = [];
  const tokenTaker = (async () => {
    while (Date.now() < until) {
      tokens.push(await token(baseUrl, reader));
      await new Promise((r) => setTimeout(r, 2_000));
    }
  })();
  const during = await readCatalog(baseUrl, reader.api_key, until - s.teardownMarginMs);
  const [tally] = await Promise.all([uploads, tokenTaker]);
  return { baseline, during, tokens, tally };
}

/** The uploads in a child process; resolves with what they got, by status (0: the connection closed without an answer). */
async function runSlowUploads({ port, heads, until }) {
  const s = SLOW_UPLOADS;
  const child = spawn(process.execPath, [self, ...[port, until, s.trickleMs, s.pauseMs, s.rampMs].map(String)], { stdio: ['pipe', 'pipe', 'inherit'] });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk.toString('utf8')));
  const exited = new Promise((resolve) => child.once('exit', (code) => resolve(code)));
  child.stdin.end(JSON.stringify(heads));
  const code = await exited;
  if (code !== 0) throw new Error(`the slow uploader exited with code ${code}: ${output}`);
  return new Map(Object.entries(JSON.parse(output)).map(([status, n]) => [Number(status), n]));
}

/** One upload: its head, then a byte every `trickleMs` until the gateway closes the connection or `until`. */
function upload(port, head, until, trickleMs) {
  return new Promise((resolve) => {
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
      resolve(Number(/^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1] ?? 0));
    });
    socket.write(head);
  });
}

/** As a script: every head its own upload, opened again `pauseMs` after each close, until `until`; prints the tally. */
async function uploader() {
  const [port, until, trickleMs, pauseMs, rampMs] = process.argv.slice(2).map(Number);
  let input = '';
  for await (const chunk of process.stdin) input += chunk;
  const heads = JSON.parse(input);
  const tally = {};
  await Promise.all(
    heads.map(async (head, i) => {
      await new Promise((r) => setTimeout(r, (i * rampMs) / heads.length));
      while (Date.now() < until) {
        const status = await upload(port, head, until, trickleMs);
        tally[status] = (tally[status] ?? 0) + 1;
        await new Promise((r) => setTimeout(r, pauseMs));
      }
    }),
  );
  process.stdout.write(JSON.stringify(tally));
}

if (process.argv[1] === self) await uploader();

// A client that trickles its request body to /mcp: the service's body
// deadline (service-kit's, as every service has) answers 408 in the envelope
// and closes the connection, however short each pause between bytes is.
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { internalHeaders, trickle, type RawAnswer } from '@msa/test-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMcpHarness, type McpHarness } from './support.js';

let h: McpHarness;
let server: Server;

beforeAll(async () => {
  h = await startMcpHarness('mcp-slow-body', { bodyDeadlineMs: 800 });
  server = await new Promise<Server>((resolve) => {
    const s = h.app.listen(0, '127.0.0.1', () => resolve(s));
  });
});

afterAll(async () => {
  await new Promise((r) => server?.close(r));
  await h?.close();
});

/** POSTs a 1,000-byte body to /mcp one byte every 100 ms; resolves with the raw answer once the server closes. */
function trickleToMcp(): Promise<RawAnswer> {
  const { port } = server.address() as AddressInfo;
  const headers = { Host: `127.0.0.1:${port}`, 'Content-Type': 'application/json', 'Content-Length': '1000', Accept: 'application/json, text/event-stream', ...internalHeaders('mcp', {}) };
  const head = `POST /mcp HTTP/1.1\r\n${Object.entries(headers).map(([k, v]) => `${k}: ${v}`).join('\r\n')}\r\n\r\n`;
  return trickle(port, head, { byte: (n) => (n === 0 ? '{' : ' ') }).answer;
}

describe('POST /mcp with a body trickled in', () => {
  it('answers 408 request_timeout at the body deadline and closes the connection, long before the body could arrive', async () => {
    const answer = await trickleToMcp();

    expect(answer.status).toBe(408);
    expect(JSON.parse(answer.body)).toMatchObject({ error: { code: 'request_timeout', status: 408 } });
    expect(answer.bytesSent).toBeLessThan(1_000);
  });
});

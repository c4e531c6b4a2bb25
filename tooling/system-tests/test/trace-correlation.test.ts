// One request, one story: the request id and the W3C trace id a caller sends
// reach every service's log lines, the intake worker's, and the operator's
// e-mail headers, so an operator can follow a shop request end to end.
import { startSmtpSink, type SmtpSink } from '@msa/test-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey, startSystem, type System } from '../src/system.js';

const OPERATOR = 'operator@merch.test';
const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const REQUEST_ID = 'trace-correlation-1';

let system: System;
let smtp: SmtpSink;

beforeAll(async () => {
  smtp = await startSmtpSink();
  system = await startSystem({
    name: 'trace-correlation',
    worker: { smtpUrl: smtp.url, operatorEmail: OPERATOR },
    captureLogs: true,
  });
});

afterAll(async () => {
  await system?.close();
  await smtp?.close();
});

async function waitUntil(check: () => boolean, what: string, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (check()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe('request and trace correlation', () => {
  it('carries the caller request id and trace id from the gateway through the worker into the operator e-mail', async () => {
    const key = await createKey(system.baseUrl, { mode: 'live' });

    const res = await fetch(`${system.baseUrl}/v1/shop-requests`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${key.api_key}`,
        'content-type': 'application/json',
        'x-request-id': REQUEST_ID,
        traceparent: `00-${TRACE_ID}-00f067aa0ba902b7-01`,
      },
      body: JSON.stringify({
        organization: { name: 'Café Morgenrot', type: 'gastro', contact_name: 'Jonas Beispiel', email: 'jonas@example.org' },
        shop_name: 'Morgenrot Team',
        products: [{ product: 'bio-t-shirt-unisex' }],
      }),
    });
    expect(res.status).toBe(201);
    expect(res.headers.get('x-request-id')).toBe(REQUEST_ID);
    await waitUntil(() => smtp.received() >= 2, 'both e-mails');
    await waitUntil(() => system.logs.some((l) => l.service === 'intake-worker' && l.msg === 'shop request delivered'), 'the delivery log line');

    const operator = smtp.messages.map((m) => m.parsed).find((m) => m.to && JSON.stringify(m.to).includes(OPERATOR));
    expect(operator?.headers.get('x-request-id')).toBe(REQUEST_ID);
    expect(String(operator?.headers.get('traceparent'))).toContain(`-${TRACE_ID}-`);
    for (const service of ['gateway', 'requests', 'intake-worker']) {
      const lines = system.logs.filter((l) => l.service === service && l.requestId === REQUEST_ID);
      expect(lines.length, `${service} log lines with the request id`).toBeGreaterThan(0);
      expect(lines.every((l) => l.traceId === TRACE_ID), `${service} log lines carry the trace id`).toBe(true);
    }
  });
});

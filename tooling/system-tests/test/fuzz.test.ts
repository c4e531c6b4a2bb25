// Property-based fuzzing of the running system: requests generated from the
// served OpenAPI document (valid shapes, mutated shapes, junk), malformed and
// deeply nested bodies, long headers, and raw bytes written to every port.
// Whatever arrives, no answer is a 5xx (no upstream is stopped here), every
// error is the JSON envelope, and every service is still up afterwards.
//
// FUZZ_RUNS (default 2000) and FUZZ_SEED set the size and the sequence; a
// failure prints the seed and path that reproduce it.
import { connect } from 'node:net';
import fc from 'fast-check';
import { dechunk } from '@msa/test-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey, startSystem, type System } from '../src/system.js';

const RUNS = Number(process.env.FUZZ_RUNS ?? 2_000);
const SEED = Number(process.env.FUZZ_SEED ?? 20_260_101);
/** Of the runs, this share goes over HTTP from the OpenAPI document; the rest is raw bytes. */
const HTTP_SHARE = 0.75;
/** Generous for a slow shared machine; a 10,000 run by hand needs more than CI's 2,000. */
const TIME_LIMIT_MS = Math.max(120_000, RUNS * 40);

type Schema = Record<string, unknown>;
interface Operation {
  method: string;
  path: string;
  params: { in: string; name: string; schema?: Schema }[];
  body?: { type: string; schema: Schema };
}

interface Tally {
  requests: number;
  byStatus: Map<number, number>;
  serverErrors: string[];
  nonJson: string[];
  emptyRaw: number;
}

const tally: Tally = { requests: 0, byStatus: new Map(), serverErrors: [], nonJson: [], emptyRaw: 0 };

function record(status: number, what: string, body: string, contentType: string | undefined): void {
  tally.requests++;
  tally.byStatus.set(status, (tally.byStatus.get(status) ?? 0) + 1);
  if (status >= 500) tally.serverErrors.push(`${status} ${what}: ${body.slice(0, 200)}`);
  if (status >= 400 && !isEnvelope(body, contentType)) tally.nonJson.push(`${status} ${what}: ${JSON.stringify(body.slice(0, 120))}`);
}

function isEnvelope(body: string, contentType: string | undefined): boolean {
  if (!contentType?.startsWith('application/json')) return false;
  try {
    const parsed = JSON.parse(body) as { error?: { code?: unknown } };
    // /mcp answers JSON-RPC errors, with the envelope in error.data when the API has a code for it.
    return typeof parsed.error?.code === 'string' || typeof parsed.error?.code === 'number';
  } catch {
    return false;
  }
}

/** A value for `schema`, mostly valid, with the edges zod has to refuse. */
function valueFor(schema: Schema | undefined, doc: Schema, depth = 0): fc.Arbitrary<unknown> {
  if (!schema || depth > 6) return fc.jsonValue({ maxDepth: 2 });
  const ref = schema.$ref as string | undefined;
  if (ref) return valueFor((doc.components as { schemas: Record<string, Schema> }).schemas[ref.split('/').pop()!], doc, depth);
  const variants = (schema.anyOf ?? schema.oneOf) as Schema[] | undefined;
  if (variants) return fc.oneof(...variants.map((s) => valueFor(s, doc, depth + 1)));
  if (Array.isArray(schema.enum)) return fc.oneof(fc.constantFrom(...(schema.enum as unknown[])), fc.string());
  switch (schema.type) {
    case 'object': {
      const props = (schema.properties ?? {}) as Record<string, Schema>;
      const required = new Set((schema.required ?? []) as string[]);
      const model = Object.fromEntries(Object.entries(props).map(([k, s]) => [k, valueFor(s, doc, depth + 1)]));
      return fc.record(model, { requiredKeys: Object.keys(props).filter((k) => required.has(k)) });
    }
    case 'array':
      return fc.array(valueFor(schema.items as Schema, doc, depth + 1), { maxLength: Math.min(Number(schema.maxItems ?? 3), 22) });
    case 'integer':
      return fc.oneof(fc.integer({ min: -5, max: 300 }), fc.constantFrom(0, -1, 2 ** 53, 1e308));
    case 'number':
      return fc.oneof(fc.double({ noNaN: true, noDefaultInfinity: true }), fc.constantFrom(0, 40.000001, -0));
    case 'boolean':
      return fc.boolean();
    case 'string':
      if (schema.format === 'email') return fc.oneof(fc.emailAddress(), fc.string());
      if (schema.format === 'uri') return fc.oneof(fc.webUrl(), fc.constantFrom('http://127.0.0.1:1/x.png', 'file:///etc/passwd'), fc.string());
      return fc.oneof(fc.string({ maxLength: Number(schema.maxLength ?? 40) }), fc.string({ unit: 'grapheme', maxLength: 300 }));
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}

/** Bodies that are not what any schema wants. */
const hostileBody = fc.oneof(
  fc.constantFrom('{', '{"a":', '[1,2', 'null', '""', '\u0000', '{"__proto__":{"polluted":1}}', '{"a":1,"a":2}'),
  fc.integer({ min: 33, max: 20_000 }).map((d) => '['.repeat(d) + ']'.repeat(d)),
  fc.integer({ min: 33, max: 5_000 }).map((d) => '{"a":'.repeat(d) + '1' + '}'.repeat(d)),
  fc.string({ unit: 'binary', maxLength: 200 }),
  fc.constant('x'.repeat(110 * 1024)),
  fc.jsonValue({ maxDepth: 4 }).map((v) => JSON.stringify(v)),
);

const headerText = fc.string({ unit: fc.integer({ min: 0x21, max: 0x7e }).map((c) => String.fromCharCode(c)), maxLength: 60 });

describe('fuzzing the running system', () => {
  let system: System;
  let apiKey: string;
  let operations: Operation[];
  let doc: Schema;
  let ports: number[];

  beforeAll(async () => {
    system = await startSystem({
      name: 'fuzz',
      // Limits high enough that the fuzz reaches the services, not only the limiters.
      gatewayEnv: { RATE_LIMIT_ANON_PER_MINUTE: '1000000', RATE_LIMIT_PER_MINUTE: '1000000', RATE_LIMIT_FAILED_AUTH_PER_MINUTE: '1000000' },
    });
    apiKey = (await createKey(system.baseUrl, { mode: 'sandbox' })).api_key;
    doc = (await (await fetch(`${system.baseUrl}/openapi.json`)).json()) as Schema;
    operations = [];
    for (const [path, item] of Object.entries(doc.paths as Record<string, Record<string, Schema>>)) {
      for (const [method, op] of Object.entries(item)) {
        if (!op || typeof op !== 'object' || !('responses' in op)) continue;
        const content = (op.requestBody as { content?: Record<string, { schema: Schema }> } | undefined)?.content ?? {};
        const [type, media] = Object.entries(content)[0] ?? [];
        operations.push({
          method: method.toUpperCase(),
          path,
          params: (op.parameters ?? []) as Operation['params'],
          ...(type && media ? { body: { type, schema: media.schema } } : {}),
        });
      }
    }
    ports = Object.values(system.services).flatMap((s) => [s.port, ...(s.adminUrl ? [Number(new URL(s.adminUrl).port)] : [])]);
  }, 60_000);

  afterAll(async () => {
    const statuses = [...tally.byStatus.entries()].sort(([a], [b]) => a - b).map(([s, n]) => `${s}×${n}`).join(' ');
    console.log(
      `fuzz: seed ${SEED}, ${tally.requests} requests, ${tally.serverErrors.length} × 5xx, ${tally.nonJson.length} non-JSON errors, ` +
        `${tally.emptyRaw} raw exchanges closed without an answer; statuses ${statuses}`,
    );
    await system?.close();
  });

  it('answers requests generated from the OpenAPI document without a 5xx, and every error as JSON', async () => {
    expect(operations.length).toBeGreaterThan(10);
    const request = fc.constantFrom(...operations).chain((op) => fc.record({
      op: fc.constant(op),
      bodyValue: op.body ? valueFor(op.body.schema, doc) : fc.constant(undefined),
      rawPercent: fc.boolean(),
      sandbox: fc.boolean(),
      auth: fc.constantFrom('none', 'key', 'long-key', 'junk-bearer', 'token-ish', 'basic'),
      pathValue: fc.oneof(fc.stringMatching(/^[a-z0-9-]{1,30}$/), fc.string({ maxLength: 40 }), fc.constantFrom('%zz', '..%2F..', 'req_0123456789abcdef', '%00', '🙂')),
      query: fc.dictionary(fc.constantFrom('q', 'type', 'limit', 'offset', 'category', 'decoration', 'x'), fc.string({ maxLength: 120 }), { maxKeys: 3 }),
      body: fc.option(fc.boolean(), { nil: undefined }),
      hostile: hostileBody,
      contentType: fc.constantFrom('schema', 'application/json', 'text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/json; charset=utf-16', ''),
      extraHeader: fc.option(fc.tuple(fc.constantFrom('x-request-id', 'idempotency-key', 'accept', 'origin', 'mcp-protocol-version', 'x-pad'), headerText), { nil: undefined }),
      longHeader: fc.oneof({ arbitrary: fc.constant(undefined), weight: 19 }, { arbitrary: fc.constant('y'.repeat(20_000)), weight: 1 }),
    }));

    await fc.assert(
      fc.asyncProperty(request, fc.context(), async (r, ctx) => {
        const encoded = encodeURIComponent(r.pathValue);
        // Now and then a raw `%` reaches the router undecodable.
        const path = r.op.path.replace(/\{[^}]+\}/g, () => (r.rawPercent ? encoded.replace(/%25/g, '%') : encoded));
        const url = new URL(`${system.baseUrl}${r.sandbox ? '/sandbox' : ''}${path}`);
        for (const [k, v] of Object.entries(r.query)) url.searchParams.set(k, v);
        const headers: Record<string, string> = {};
        if (r.auth === 'key') headers.authorization = `Bearer ${apiKey}`;
        if (r.auth === 'long-key') headers['x-api-key'] = `msa_live_${'k'.repeat(300)}`;
        if (r.auth === 'junk-bearer') headers.authorization = 'Bearer !!!';
        if (r.auth === 'token-ish') headers.authorization = 'Bearer aaa.bbb.ccc';
        if (r.auth === 'basic') headers.authorization = 'Basic bXNhX2NsaWVudF94OnNlY3JldA==';
        if (r.extraHeader) headers[r.extraHeader[0]] = r.extraHeader[1];
        if (r.longHeader) headers['x-long'] = r.longHeader;
        let body: string | undefined;
        if (r.op.method !== 'GET' && r.op.method !== 'HEAD' && r.body !== undefined) {
          body = r.body ? JSON.stringify(r.bodyValue) ?? 'null' : r.hostile;
          const type = r.contentType === 'schema' ? r.op.body?.type ?? 'application/json' : r.contentType;
          if (type) headers['content-type'] = type;
          if (r.op.path === '/mcp') headers.accept = 'application/json, text/event-stream';
        }
        ctx.log(`${r.op.method} ${url.pathname}${url.search}`);

        const res = await fetch(url, { method: r.op.method, headers, body, redirect: 'manual' });
        const text = await res.text();

        record(res.status, `${r.op.method} ${url.pathname}`, text, res.headers.get('content-type') ?? undefined);
        expect(res.status, text.slice(0, 300)).toBeLessThan(500);
        if (res.status >= 400) expect(isEnvelope(text, res.headers.get('content-type') ?? undefined), text.slice(0, 200)).toBe(true);
      }),
      { numRuns: Math.round(RUNS * HTTP_SHARE), seed: SEED, endOnFailure: true },
    );
  }, TIME_LIMIT_MS);

  it('answers raw bytes on every port with the JSON envelope or a valid answer, never a non-JSON error', async () => {
    const raw = fc.record({
      portIndex: fc.nat(),
      bytes: fc.oneof(
        fc.uint8Array({ maxLength: 300 }).map((b) => Buffer.concat([Buffer.from(b), Buffer.from('\r\n\r\n')])),
        fc.tuple(fc.constantFrom('GET', 'POST', 'BREW', 'G\u0000T', 'get', 'PRI', 'CONNECT'), fc.string({ unit: 'binary', maxLength: 40 })).map(
          ([m, p]) => Buffer.from(`${m} /${p} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`, 'latin1'),
        ),
        fc.integer({ min: 17_000, max: 40_000 }).map((n) => Buffer.from(`GET /healthz HTTP/1.1\r\nHost: x\r\nX-Pad: ${'p'.repeat(n)}\r\n\r\n`)),
        fc.uint8Array({ minLength: 1, maxLength: 40 }).map((b) =>
          Buffer.concat([Buffer.from('GET /healthz HTTP/1.1\r\nHost: x\r\nX-Raw: '), Buffer.from(b), Buffer.from('\r\nConnection: close\r\n\r\n')]),
        ),
        fc.constantFrom(
          'POST /v1/keys HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\nzz\r\n',
          'POST /v1/keys HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nhello',
          'GET / HTTP/9.9\r\n\r\n',
          'GET http://evil.example/ HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n',
        ).map((s) => Buffer.from(s, 'latin1')),
      ),
    });

    await fc.assert(
      fc.asyncProperty(raw, async ({ portIndex, bytes }) => {
        const port = ports[portIndex % ports.length]!;

        const answer = await exchange(port, bytes);

        if (answer.length === 0) {
          tally.emptyRaw++;
          return;
        }
        const text = answer.toString('latin1');
        const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1]);
        const headEnd = text.indexOf('\r\n\r\n');
        const contentType = /\r\ncontent-type: *([^\r\n]*)/i.exec(text.slice(0, headEnd))?.[1];
        let body = text.slice(headEnd + 4);
        if (/\r\ntransfer-encoding: *chunked/i.test(text.slice(0, headEnd))) body = dechunk(body);
        record(status, `raw to :${port}`, body, contentType);
        expect(status, text.slice(0, 200)).toBeLessThan(500);
        if (status >= 400) expect(isEnvelope(body, contentType), text.slice(0, 300)).toBe(true);
      }),
      { numRuns: RUNS - Math.round(RUNS * HTTP_SHARE), seed: SEED, endOnFailure: true },
    );
  }, TIME_LIMIT_MS);

  it('keeps every service up: /healthz answers on each after the fuzzing', async () => {
    for (const [name, service] of Object.entries(system.services)) {
      const res = await fetch(`${service.url}/healthz`);

      expect(res.status, name).toBe(200);
    }
    expect(tally.serverErrors).toEqual([]);
    expect(tally.nonJson).toEqual([]);
  });
});

/** Writes `bytes`, half-closes, and collects the first answer; gives up after 3 s. */
function exchange(port: number, bytes: Buffer): Promise<Buffer> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    const done = () => {
      clearTimeout(timer);
      socket.destroy();
      resolve(Buffer.concat(chunks));
    };
    const timer = setTimeout(done, 3_000);
    socket.on('data', (c) => {
      chunks.push(c);
      // One complete answer is enough: a keep-alive socket would stay open.
      const text = Buffer.concat(chunks).toString('latin1');
      const headEnd = text.indexOf('\r\n\r\n');
      if (headEnd < 0) return;
      const length = /\r\ncontent-length: *(\d+)/i.exec(text.slice(0, headEnd))?.[1];
      if (length !== undefined && Buffer.byteLength(text.slice(headEnd + 4), 'latin1') >= Number(length)) done();
      if (/\r\ntransfer-encoding: *chunked/i.test(text.slice(0, headEnd)) && text.endsWith('0\r\n\r\n')) done();
    });
    socket.on('error', () => done());
    socket.on('close', () => done());
    socket.end(bytes);
  });
}


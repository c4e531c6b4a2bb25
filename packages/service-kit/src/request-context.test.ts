import { describe, expect, it } from 'vitest';
import { nextTraceparent, pickRequestId, traceIdOf } from './request-context.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const TRACEPARENT = /^00-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$/;

describe('pickRequestId', () => {
  it.each(['abc-123', 'req_01HZX.7:a', 'a'.repeat(128), '7f3c1f0e-2d6b-4c8e-9a51-0c1d2e3f4a5b'])('keeps the sane id %s', (id) => {
    expect(pickRequestId(id)).toBe(id);
  });

  it.each([
    ['a newline', 'abc\ndef'],
    ['a carriage return', 'abc\r\nX-Injected: 1'],
    ['129 characters', 'a'.repeat(129)],
    ['markup', '<script>alert(1)</script>'],
    ['spaces', 'id with spaces'],
    ['an empty string', ''],
    ['non-ASCII', 'anfrage-ä'],
  ])('replaces an id with %s by a new UUID', (_what, id) => {
    expect(pickRequestId(id)).toMatch(UUID);
  });

  it('makes a new UUID when the header is missing or repeated', () => {
    expect(pickRequestId(undefined)).toMatch(UUID);
    expect(pickRequestId(['a', 'b'])).toMatch(UUID);
  });

  it('makes a different id each time', () => {
    expect(pickRequestId(undefined)).not.toBe(pickRequestId(undefined));
  });
});

describe('nextTraceparent', () => {
  const incoming = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';

  it('keeps the trace id and flags and changes the span id', () => {
    const next = nextTraceparent(incoming);

    expect(next).toMatch(TRACEPARENT);
    expect(traceIdOf(next)).toBe('4bf92f3577b34da6a3ce929d0e0e4736');
    expect(next.split('-')[2]).not.toBe('00f067aa0ba902b7');
    expect(next.endsWith('-01')).toBe(true);
  });

  it('keeps an unsampled flag', () => {
    expect(nextTraceparent('00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00').endsWith('-00')).toBe(true);
  });

  it.each([
    ['missing', undefined],
    ['malformed', 'not-a-traceparent'],
    ['upper-case hex', '00-4BF92F3577B34DA6A3CE929D0E0E4736-00F067AA0BA902B7-01'],
    ['of another version', '01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01'],
  ])('starts a new sampled trace when the header is %s', (_what, header) => {
    const next = nextTraceparent(header);

    expect(next).toMatch(TRACEPARENT);
    expect(traceIdOf(next)).not.toBe('4bf92f3577b34da6a3ce929d0e0e4736');
    expect(next.endsWith('-01')).toBe(true);
  });

  it('starts a new trace for the all-zero trace id, which W3C declares invalid', () => {
    const next = nextTraceparent(`00-${'0'.repeat(32)}-00f067aa0ba902b7-01`);

    expect(traceIdOf(next)).not.toBe('0'.repeat(32));
  });
});

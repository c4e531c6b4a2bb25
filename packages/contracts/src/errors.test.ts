import { describe, expect, it } from 'vitest';
import { ERROR_CODES, ERROR_CODE_LIST, ErrorEnvelope, errorDocsUrl } from './errors.js';

describe('ERROR_CODES', () => {
  it('spells every code in snake_case', () => {
    for (const code of ERROR_CODE_LIST) expect(code).toMatch(/^[a-z]+(_[a-z]+)*$/);
  });

  it.each([
    ['validation_failed', 422],
    ['unauthorized', 401],
    ['insufficient_scope', 403],
    ['rate_limited', 429],
    ['product_not_found', 404],
    ['invalid_request', 400],
    ['invalid_scope', 400],
    ['invalid_client', 401],
  ] as const)('answers %s with status %i as spec section 7 names it', (code, status) => {
    expect(ERROR_CODES[code].status).toBe(status);
  });

  it('gives every code an error status, a title and a hint', () => {
    for (const code of ERROR_CODE_LIST) {
      const def = ERROR_CODES[code];
      expect(def.status, code).toBeGreaterThanOrEqual(400);
      expect(def.status, code).toBeLessThan(600);
      expect(def.title.length, code).toBeGreaterThan(0);
      expect(def.hint.length, code).toBeGreaterThan(0);
    }
  });

  it('has the codes the service kit answers with for malformed requests', () => {
    expect(ERROR_CODES.invalid_json.status).toBe(400);
    expect(ERROR_CODES.not_found.status).toBe(404);
    expect(ERROR_CODES.method_not_allowed.status).toBe(405);
    expect(ERROR_CODES.payload_too_large.status).toBe(413);
    expect(ERROR_CODES.unsupported_media_type.status).toBe(415);
    expect(ERROR_CODES.internal_error.status).toBe(500);
  });

  it('has the codes written at the socket for requests the HTTP parser refuses', () => {
    expect(ERROR_CODES.request_timeout.status).toBe(408);
    expect(ERROR_CODES.headers_too_large.status).toBe(431);
  });
});

describe('errorDocsUrl', () => {
  it('points at the code anchor of the developer portal', () => {
    expect(errorDocsUrl('https://api.example.de', 'rate_limited')).toBe('https://api.example.de/developers#rate_limited');
  });
});

describe('ErrorEnvelope', () => {
  it('accepts the envelope of spec section 7 with fields', () => {
    const envelope = {
      error: {
        code: 'validation_failed',
        status: 422,
        message: 'The request body is invalid.',
        hint: ERROR_CODES.validation_failed.hint,
        docs: errorDocsUrl('https://api.example.de', 'validation_failed'),
        openapi: 'https://api.example.de/openapi.json',
        fields: [{ field: 'organization.email', message: 'must be a valid e-mail address' }],
      },
    };

    expect(ErrorEnvelope.parse(envelope)).toEqual(envelope);
  });

  it('requires code, message and status', () => {
    expect(ErrorEnvelope.safeParse({ error: { code: 'x', message: 'y' } }).success).toBe(false);
  });
});

import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createReplaySeal } from './replay-seal.js';

const body = JSON.stringify({ api_key: 'msa_test_secretvalue', client_secret: 'msa_secret_value' });

describe('createReplaySeal', () => {
  it('opens what it sealed with the same Idempotency-Key', () => {
    const seal = createReplaySeal(randomBytes(32));

    expect(seal.open(seal.seal(body, 'key-1'), 'key-1')).toBe(body);
  });

  it('stores nothing of the body in clear', () => {
    const sealed = createReplaySeal(randomBytes(32)).seal(body, 'key-1');

    expect(sealed).not.toContain('msa_test_secretvalue');
    expect(sealed).not.toContain('msa_secret_value');
    expect(Buffer.from(sealed.split('.')[3]!, 'base64url').toString('utf8')).not.toContain('msa_');
  });

  it('cannot be opened with another Idempotency-Key or another server secret', () => {
    const secret = randomBytes(32);
    const sealed = createReplaySeal(secret).seal(body, 'key-1');

    expect(() => createReplaySeal(secret).open(sealed, 'key-2')).toThrow(/can no longer be replayed/);
    expect(() => createReplaySeal(randomBytes(32)).open(sealed, 'key-1')).toThrow(/can no longer be replayed/);
  });
});

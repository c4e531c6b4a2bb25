import { describe, expect, it } from 'vitest';
import { createSealedText } from './sealed-text.js';

const SECRET = 'x'.repeat(40);

describe('sealed text', () => {
  it('opens what it sealed, and the sealed form does not contain the text', () => {
    const seal = createSealedText(SECRET, 'mail');
    const sealed = seal.seal('erika@example.org 123456');
    expect(sealed).not.toContain('erika');
    expect(sealed).not.toContain('123456');
    expect(seal.open(sealed)).toBe('erika@example.org 123456');
  });

  it('opens nothing sealed under another secret or purpose, or tampered with', () => {
    const sealed = createSealedText(SECRET, 'mail').seal('code');
    expect(createSealedText('y'.repeat(40), 'mail').open(sealed)).toBeNull();
    expect(createSealedText(SECRET, 'other').open(sealed)).toBeNull();
    const parts = sealed.split('.');
    parts[3] = Buffer.from('cafe').toString('base64url');
    expect(createSealedText(SECRET, 'mail').open(parts.join('.'))).toBeNull();
    expect(createSealedText(SECRET, 'mail').open('garbage')).toBeNull();
  });
});

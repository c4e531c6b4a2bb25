import { describe, expect, it } from 'vitest';
import { digest, sameSecret } from './digest.js';

describe('digest', () => {
  it('is the hex SHA-256 of the text', () => {
    expect(digest('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });
});

describe('sameSecret', () => {
  it('accepts equal secrets', () => {
    expect(sameSecret('s3cret', 's3cret')).toBe(true);
  });

  it('refuses secrets that differ in a character or in length', () => {
    expect(sameSecret('s3cret', 's3creT')).toBe(false);
    expect(sameSecret('s3cret', 's3cret!')).toBe(false);
  });
});

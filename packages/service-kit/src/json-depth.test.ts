import { describe, expect, it } from 'vitest';
import { jsonDepthExceeds } from './json-depth.js';

describe('jsonDepthExceeds', () => {
  it('counts objects and arrays inside each other, not scalars', () => {
    expect(jsonDepthExceeds({ a: [{ b: 'x' }] }, 3)).toBe(false);
    expect(jsonDepthExceeds({ a: [{ b: ['x'] }] }, 3)).toBe(true);
    expect(jsonDepthExceeds('text', 0)).toBe(false);
    expect(jsonDepthExceeds(null, 0)).toBe(false);
  });

  it('measures the deepest branch, not the first', () => {
    expect(jsonDepthExceeds([1, 2, { a: { b: { c: {} } } }], 4)).toBe(true);
  });

  it('walks a body nested 100,000 deep without recursion', () => {
    const deep = JSON.parse('['.repeat(100_000) + ']'.repeat(100_000)) as unknown;

    expect(jsonDepthExceeds(deep, 32)).toBe(true);
  });
});

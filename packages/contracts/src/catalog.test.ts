import { describe, expect, it } from 'vitest';
import { Handle, ProductHandleParams, ProductListQuery } from './catalog.js';

/** Query strings arrive as strings; the schema coerces them like a route handler sees them. */
function queryProblems(query: Record<string, string>): string[] {
  const parsed = ProductListQuery.safeParse(query);
  return parsed.success ? [] : parsed.error.issues.map((issue) => issue.path.join('.'));
}

describe('ProductListQuery', () => {
  it('defaults limit to 50 and offset to 0', () => {
    expect(ProductListQuery.parse({})).toEqual({ limit: 50, offset: 0 });
  });

  it.each(['1', '250'])('accepts limit %s', (limit) => {
    expect(ProductListQuery.parse({ limit }).limit).toBe(Number(limit));
  });

  it.each(['0', '251', '-1', '2.5', 'fifty'])('rejects limit %s', (limit) => {
    expect(queryProblems({ limit })).toEqual(['limit']);
  });

  it('accepts offset 0', () => {
    expect(ProductListQuery.parse({ offset: '0' }).offset).toBe(0);
  });

  it.each(['-1', '1.5', 'x'])('rejects offset %s', (offset) => {
    expect(queryProblems({ offset })).toEqual(['offset']);
  });

  it('accepts q of 100 characters and rejects 101', () => {
    expect(queryProblems({ q: 'q'.repeat(100) })).toEqual([]);
    expect(queryProblems({ q: 'q'.repeat(101) })).toEqual(['q']);
  });

  it('accepts type of 60 characters and rejects 61', () => {
    expect(queryProblems({ type: 't'.repeat(60) })).toEqual([]);
    expect(queryProblems({ type: 't'.repeat(61) })).toEqual(['type']);
  });

  it('accepts decoration dtf and stick only', () => {
    expect(queryProblems({ decoration: 'dtf' })).toEqual([]);
    expect(queryProblems({ decoration: 'stick' })).toEqual([]);
    expect(queryProblems({ decoration: 'siebdruck' })).toEqual(['decoration']);
  });
});

describe('Handle', () => {
  it.each(['bio-t-shirt-unisex', 'cap-5', '0'])('accepts %s', (handle) => {
    expect(ProductHandleParams.safeParse({ handle }).success).toBe(true);
  });

  it.each(['Bio-Shirt', 'bio_shirt', 'bio shirt', '', 'shirt/../x', 'shirt%20x', 'äpfel'])('rejects %j', (handle) => {
    expect(Handle.safeParse(handle).success).toBe(false);
  });
});

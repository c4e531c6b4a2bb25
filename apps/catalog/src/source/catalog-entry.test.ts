import { describe, expect, it } from 'vitest';
import { CatalogFeed } from './catalog-entry.js';

describe('CatalogFeed', () => {
  it('accepts a bare array and a { products } object alike', () => {
    const entry = { handle: 'cap', title: 'Cap' };

    expect(CatalogFeed.parse([entry])).toEqual([entry]);
    expect(CatalogFeed.parse({ products: [entry] })).toEqual([entry]);
  });

  it('drops fields the service derives or does not know', () => {
    const [entry] = CatalogFeed.parse([{ handle: 'cap', title: 'Cap', url: 'https://elsewhere.test', currency: 'USD', extra: 1 }]);

    expect(entry).toEqual({ handle: 'cap', title: 'Cap' });
  });

  it('rejects the whole feed for one bad entry', () => {
    expect(CatalogFeed.safeParse([{ handle: 'cap', title: 'Cap' }, { handle: 'Bad Handle', title: 'x' }]).success).toBe(false);
    expect(CatalogFeed.safeParse([{ handle: 'cap', title: 'Cap', decoration: ['screen'] }]).success).toBe(false);
  });

  it('rejects duplicate handles', () => {
    const result = CatalogFeed.safeParse([
      { handle: 'cap', title: 'Cap' },
      { handle: 'cap', title: 'Cap again' },
    ]);

    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.message).toBe("duplicate handle 'cap'");
  });
});

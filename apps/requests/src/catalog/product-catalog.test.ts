import type { CallContext, Product } from '@msa/contracts';
import { AppError } from '@msa/service-kit';
import { buildContext, testLogger } from '@msa/test-kit';
import { describe, expect, it } from 'vitest';
import { createProductCatalog } from './product-catalog.js';

const shirt: Product = { handle: 'bio-t-shirt-unisex', title: 'Bio T-Shirt Unisex', url: 'https://shop.example/p/1', currency: 'EUR' };
const ctx: CallContext = buildContext();

describe('createProductCatalog', () => {
  it('asks the catalog once within the cache period', async () => {
    let calls = 0;
    let clock = 0;
    const catalog = createProductCatalog({
      listAllProducts: async () => {
        calls++;
        return [shirt];
      },
      logger: testLogger(),
      ttlMs: 60_000,
      now: () => clock,
    });

    await Promise.all([catalog.index(ctx), catalog.index(ctx)]);
    clock = 59_999;
    const index = await catalog.index(ctx);

    expect(calls).toBe(1);
    expect(index.find('Bio T-Shirt Unisex')?.handle).toBe('bio-t-shirt-unisex');
  });

  it('asks again once the period is over', async () => {
    let calls = 0;
    let clock = 0;
    const catalog = createProductCatalog({
      listAllProducts: async () => {
        calls++;
        return [shirt];
      },
      logger: testLogger(),
      now: () => clock,
    });

    await catalog.index(ctx);
    clock = 60_000;
    await catalog.index(ctx);

    expect(calls).toBe(2);
  });

  it('resolves against the last copy while the catalog is down', async () => {
    let clock = 0;
    let up = true;
    const catalog = createProductCatalog({
      listAllProducts: async () => {
        if (!up) throw new Error('catalog down');
        return [shirt];
      },
      logger: testLogger(),
      now: () => clock,
    });
    await catalog.index(ctx);
    up = false;
    clock = 120_000;

    const index = await catalog.index(ctx);

    expect(index.find('bio-t-shirt-unisex')).toBeDefined();
  });

  it('answers catalog_unavailable when the catalog is down and nothing is cached', async () => {
    const catalog = createProductCatalog({
      listAllProducts: async () => {
        throw new Error('catalog down');
      },
      logger: testLogger(),
    });

    const err = await catalog.index(ctx).catch((e: unknown) => e);

    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).code).toBe('catalog_unavailable');
  });
});

import { Pricing } from '@msa/contracts';
import { describe, expect, it } from 'vitest';
import { createCatalogIndex } from './catalog-index.js';
import { buildPricing } from './pricing.js';

const BASE = 'https://api.example.test';

describe('buildPricing', () => {
  it('states free setup, no minimum order, gross EUR prices and DE/AT delivery', () => {
    const pricing = buildPricing(createCatalogIndex([{ handle: 'cap', title: 'Cap' }]), BASE);

    expect(Pricing.parse(pricing)).toEqual(pricing);
    expect(pricing).toMatchObject({
      currency: 'EUR',
      shop_setup: { price: 0, currency: 'EUR' },
      minimum_order_quantity: 1,
      delivery_area: ['DE', 'AT'],
    });
    expect(pricing.price_basis).toMatch(/19 % VAT/);
  });

  it('summarises each product with nulls for prices the source leaves out', () => {
    const pricing = buildPricing(createCatalogIndex([{ handle: 'cap', title: 'Cap' }]), BASE);

    expect(pricing.products).toEqual([
      {
        handle: 'cap',
        title: 'Cap',
        url: `${BASE}/v1/products/cap`,
        currency: 'EUR',
        printed_price_from: null,
        blank_price_from: null,
        quantity_prices_dtf: null,
        decoration: [],
      },
    ]);
  });

  it('describes dtf and paused embroidery always, dtg only when a product offers it', () => {
    const without = buildPricing(createCatalogIndex([{ handle: 'a', title: 'A', decoration: ['dtf'] }]), BASE);
    const withDtg = buildPricing(createCatalogIndex([{ handle: 'a', title: 'A', decoration: ['dtf', 'dtg'] }]), BASE);

    expect(Object.keys(without.decoration)).toEqual(['dtf', 'stick']);
    expect(without.decoration.stick).toMatch(/paused/);
    expect(Object.keys(withDtg.decoration)).toEqual(['dtf', 'stick', 'dtg']);
  });
});

import type { Product, ShopType } from '@msa/contracts';
import { describe, expect, it } from 'vitest';
import { divideRounded, priceLines, unitPriceOf, type UnitPrice } from './quote-pricing.js';

function buildProduct(overrides: Partial<Product> = {}): Product {
  return {
    handle: 'bio-t-shirt-unisex',
    title: 'Bio T-Shirt Unisex',
    url: 'https://api.example/v1/products/bio-t-shirt-unisex',
    currency: 'EUR',
    printed_price_from: 19.9,
    quantity_prices_dtf: {
      tiers: [
        { ab: 1, brutto: 19.9, netto: 16.72 },
        { ab: 10, brutto: 17.9, netto: 15.04 },
        { ab: 25, brutto: 15.9, netto: 13.36 },
        { ab: 50, brutto: 14.5, netto: 12.18 },
        { ab: 100, brutto: 13.5, netto: 11.34 },
      ],
    },
    ...overrides,
  };
}

const unit = (netCents: number, grossCents: number): UnitPrice => ({ tierFrom: null, netCents, grossCents });

describe('divideRounded', () => {
  it('rounds half up and keeps exact quotients', () => {
    expect(divideRounded(1653760, 100)).toBe(16538);
    expect(divideRounded(150, 100)).toBe(2);
    expect(divideRounded(149, 100)).toBe(1);
    expect(divideRounded(1200, 100)).toBe(12);
    expect(divideRounded(0, 119)).toBe(0);
  });
});

describe('unitPriceOf', () => {
  it.each([
    [1, 1, 1672],
    [9, 1, 1672],
    [10, 10, 1504],
    [24, 10, 1504],
    [25, 25, 1336],
    [49, 25, 1336],
    [50, 50, 1218],
    [99, 50, 1218],
    [100, 100, 1134],
    [5000, 100, 1134],
  ])('b2b: %i pieces reach the tier from %i (netto %i cents)', (quantity, tierFrom, netCents) => {
    expect(unitPriceOf(buildProduct(), 'b2b', quantity)).toMatchObject({ tierFrom, netCents });
  });

  it('b2b: the tier gives netto and brutto as the catalog lists them', () => {
    expect(unitPriceOf(buildProduct(), 'b2b', 25)).toEqual({ tierFrom: 25, netCents: 1336, grossCents: 1590 });
  });

  it('b2b: finds the tier whatever order the catalog lists them in', () => {
    const shuffled = buildProduct({ quantity_prices_dtf: { tiers: [...buildProduct().quantity_prices_dtf!.tiers].reverse() } });

    expect(unitPriceOf(shuffled, 'b2b', 30)?.tierFrom).toBe(25);
  });

  it('b2c: the gross from-price whatever the quantity, net without its VAT', () => {
    for (const quantity of [1, 10, 25, 1000]) {
      expect(unitPriceOf(buildProduct(), 'b2c', quantity)).toEqual({ tierFrom: null, netCents: 1672, grossCents: 1990 });
    }
  });

  it('b2b below the first tier takes the first tier and says so', () => {
    const product = buildProduct({ quantity_prices_dtf: { tiers: [{ ab: 10, brutto: 17.9, netto: 15.04 }] } });

    expect(unitPriceOf(product, 'b2b', 5)).toEqual({ tierFrom: 10, netCents: 1504, grossCents: 1790, note: 'below_first_tier' });
  });

  it('b2b without tiers falls back to the from-price without VAT and says so', () => {
    expect(unitPriceOf(buildProduct({ quantity_prices_dtf: null, printed_price_from: 19.9 }), 'b2b', 40)).toEqual({
      tierFrom: null,
      netCents: 1672,
      grossCents: 1990,
      note: 'no_tiers',
    });
  });

  it('has no price for a product without from-price and tiers', () => {
    const priceless = buildProduct({ quantity_prices_dtf: null, printed_price_from: null });

    expect(unitPriceOf(priceless, 'b2b', 1)).toBeUndefined();
    expect(unitPriceOf(priceless, 'b2c', 1)).toBeUndefined();
  });
});

describe('priceLines', () => {
  it('b2b: net is unit × quantity, VAT 19 % of the net total rounded to the cent', () => {
    const priced = priceLines('b2b', [{ unit: unit(2176, 2590), quantity: 40 }]);

    expect(priced).toEqual({ lines: [{ totalNetCents: 87040, totalGrossCents: 103578 }], totalNetCents: 87040, vatCents: 16538, totalGrossCents: 103578 });
  });

  it('b2c: gross is unit × quantity, the VAT the one contained in the gross total', () => {
    const priced = priceLines('b2c', [{ unit: unit(1672, 1990), quantity: 40 }]);

    expect(priced).toEqual({ lines: [{ totalNetCents: 66891, totalGrossCents: 79600 }], totalNetCents: 66891, vatCents: 12709, totalGrossCents: 79600 });
  });

  it('b2b: the VAT is rounded once on the total, and the lines still add up to it', () => {
    // Rounded per line the VAT would be 2 × 3.18 = 6.36; on the net total 33.44 it is 6.35.
    const priced = priceLines('b2b', [
      { unit: unit(1672, 1990), quantity: 1 },
      { unit: unit(1672, 1990), quantity: 1 },
    ]);

    expect(priced.vatCents).toBe(635);
    expect(priced.lines).toEqual([
      { totalNetCents: 1672, totalGrossCents: 1990 },
      { totalNetCents: 1672, totalGrossCents: 1989 },
    ]);
    expect(priced.totalGrossCents).toBe(3979);
  });

  it('b2c: the gross members pay stays exact, and the net lines add up to the net total', () => {
    const priced = priceLines('b2c', [
      { unit: unit(1672, 1990), quantity: 1 },
      { unit: unit(1672, 1990), quantity: 1 },
    ]);

    expect(priced).toEqual({
      lines: [
        { totalNetCents: 1672, totalGrossCents: 1990 },
        { totalNetCents: 1673, totalGrossCents: 1990 },
      ],
      totalNetCents: 3345,
      vatCents: 635,
      totalGrossCents: 3980,
    });
  });

  it.each(['b2b', 'b2c'] as ShopType[])('%s: totals are the sums of the lines and net + VAT = gross, for every mix of quantities', (shopType) => {
    const units = [unit(1672, 1990), unit(1504, 1790), unit(3773, 4490), unit(833, 990)];

    for (let seed = 1; seed <= 400; seed++) {
      const lines = units.map((u, i) => ({ unit: u, quantity: ((seed * (i + 3) * 7919) % 137) + 1 }));
      const priced = priceLines(shopType, lines);

      expect(priced.lines.reduce((sum, l) => sum + l.totalNetCents, 0)).toBe(priced.totalNetCents);
      expect(priced.lines.reduce((sum, l) => sum + l.totalGrossCents, 0)).toBe(priced.totalGrossCents);
      expect(priced.totalNetCents + priced.vatCents).toBe(priced.totalGrossCents);
      if (shopType === 'b2b') {
        expect(priced.vatCents).toBe(Math.round(priced.totalNetCents * 0.19));
        lines.forEach((l, i) => expect(priced.lines[i]!.totalNetCents).toBe(l.unit.netCents * l.quantity));
      } else {
        expect(Math.abs(priced.vatCents - Math.round(priced.totalNetCents * 0.19))).toBeLessThanOrEqual(1);
        lines.forEach((l, i) => expect(priced.lines[i]!.totalGrossCents).toBe(l.unit.grossCents * l.quantity));
      }
      // Each line's share of the VAT is its exact share, give or take the cent that rounding moves.
      priced.lines.forEach((l) => {
        const exact = shopType === 'b2b' ? l.totalNetCents * 0.19 : (l.totalGrossCents * 19) / 119;
        expect(Math.abs(l.totalGrossCents - l.totalNetCents - exact)).toBeLessThan(1);
      });
    }
  });
});

import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { COLOR_SWATCHES, colorSwatch } from './color-swatches.js';

const products = JSON.parse(readFileSync(new URL('../../../apps/catalog/data/products.json', import.meta.url), 'utf8')) as { colors?: string[] }[];

describe('colour swatches', () => {
  it('has a swatch for every colour name the catalog lists', () => {
    const names = new Set(products.flatMap((p) => p.colors ?? []));
    const missing = [...names].filter((n) => colorSwatch(n) === null);
    expect(missing).toEqual([]);
  });

  it('paints a two-tone name as body and trim', () => {
    expect(colorSwatch('Navy/Weiß')).toEqual({ name: 'Navy/Weiß', body: COLOR_SWATCHES.Navy, trim: COLOR_SWATCHES.Weiß });
  });

  it('gives no swatch for a name outside the table', () => {
    expect(colorSwatch('Lila')).toBeNull();
    expect(colorSwatch('Navy/Lila')).toBeNull();
    expect(colorSwatch('toString')).toBeNull();
  });
});

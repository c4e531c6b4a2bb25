import { describe, expect, it } from 'vitest';
import { buildProduct } from '../../test/build-product.js';
import { checkRequestedLine, type ListedColorsGiven } from './requested-line.js';

const palette = Array.from({ length: 40 }, (_, i) => `Farbton Nummer ${i + 1}`);
const shirt = buildProduct();
const cap = buildProduct({ handle: 'cap', title: 'Cap', colors: palette });

const occurrences = (text: string, part: string) => text.split(part).length - 1;

describe('checkRequestedLine: unlisted colors', () => {
  it('words one unlisted color as before: the color, the product and its list', () => {
    const checked = checkRequestedLine('products.0', shirt, { colors: ['schwarz', 'Lila'], decoration: 'dtf' });

    expect(checked.colors).toEqual(['Schwarz', 'Lila']);
    expect(checked.warnings).toEqual([
      "products.0.colors: 'Lila' is not listed for 'Bio T-Shirt Unisex' (listed: Schwarz, Weiß, Navy); the operator will suggest the closest listed color.",
    ]);
  });

  it('names every unlisted color of a line in one warning that gives the list once', () => {
    const colors = Array.from({ length: 20 }, (_, i) => `c${i}`);

    const checked = checkRequestedLine('products.0', cap, { colors, decoration: 'dtf' });

    expect(checked.warnings).toHaveLength(1);
    const [warning] = checked.warnings as [string];
    expect(warning).toMatch(/^products\.0\.colors: 'c0', 'c1', .*'c19' are not listed for 'Cap' \(listed: /);
    expect(occurrences(warning, palette.join(', '))).toBe(1);
    expect(warning).toMatch(/suggest the closest listed colors\.$/);
  });

  it('names a color sent several times, in any case, once', () => {
    const checked = checkRequestedLine('products.0', shirt, { colors: ['Lila', 'lila', ' LILA', 'Lila'], decoration: 'dtf' });

    expect(checked.warnings).toEqual([expect.stringMatching(/^products\.0\.colors: 'Lila' is not listed/)]);
  });

  it('gives a product\'s list once per request: a later line of the same product refers to the first', () => {
    const given: ListedColorsGiven = new Map();
    const lines = Array.from({ length: 20 }, (_, i) => checkRequestedLine(`products.${i}`, cap, { colors: [`x${i}`], decoration: 'dtf' }, given));

    const all = lines.flatMap((l) => l.warnings).join('\n');
    expect(occurrences(all, palette.join(', '))).toBe(1);
    expect(lines[7]?.warnings).toEqual([
      "products.7.colors: 'x7' is not listed for 'Cap' (listed: as in products.0.colors); the operator will suggest the closest listed color.",
    ]);
  });

  it('grows with what the caller sent, not with the catalog: 400 unlisted colors cost about what they weigh', () => {
    const given: ListedColorsGiven = new Map();
    const sent = Array.from({ length: 20 }, (_, i) => Array.from({ length: 20 }, (_, j) => `c${i}-${j}`));

    const warnings = sent.flatMap((colors, i) => checkRequestedLine(`products.${i}`, cap, { colors, decoration: 'dtf' }, given).warnings);

    const sentBytes = JSON.stringify(sent).length;
    const listBytes = palette.join(', ').length;
    // Per line: the field, the product and the fixed sentence; the list once.
    expect(JSON.stringify(warnings).length).toBeLessThan(2 * sentBytes + listBytes + 20 * 150);
  });
});

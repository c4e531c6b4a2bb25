import { COLOR_SWATCHES } from '@msa/contracts/color-swatches';
import { describe, expect, it } from 'vitest';
import { garmentSvg, shade } from './garment.js';

describe('garment silhouettes', () => {
  it('tints the body in the swatch of the chosen colour', () => {
    const svg = garmentSvg('Hoodie', 'Bordeaux', 'Hoodie in Bordeaux');
    expect(svg).toContain(`fill="${COLOR_SWATCHES.Bordeaux}"`);
    expect(svg).toContain('aria-label="Hoodie in Bordeaux"');
  });

  it('paints the trim of a two-tone colour in its second colour', () => {
    const svg = garmentSvg('Cap', 'Navy/Weiß', 'Cap');
    expect(svg).toContain(`fill="${COLOR_SWATCHES.Navy}"`);
    expect(svg).toContain(`fill="${COLOR_SWATCHES.Weiß}"`);
  });

  it('draws an unknown type and colour all the same, and never an image', () => {
    const svg = garmentSvg('Regenschirm', 'Lila', 'x');
    expect(svg).toMatch(/^<svg[^>]*>.*<\/svg>$/);
    expect(svg).not.toMatch(/<image|href=/);
  });

  it('shades a colour darker and lighter within the byte range', () => {
    expect(shade('#808080', -0.5)).toBe('#404040');
    expect(shade('#f0f0f0', 0.5)).toBe('#ffffff');
  });
});

import { describe, expect, it } from 'vitest';
import { renderShopPlaceholderSvg } from './placeholder-svg.js';

describe('renderShopPlaceholderSvg', () => {
  it('shows the name and the category', () => {
    const svg = renderShopPlaceholderSvg('Bäckerei Sonnenkorn', 'gastro');

    expect(svg).toMatch(/^<svg xmlns="http:\/\/www.w3.org\/2000\/svg"/);
    expect(svg).toContain('>Bäckerei Sonnenkorn</text>');
    expect(svg).toContain('>Gastronomie</text>');
  });

  it('escapes markup in names from the source', () => {
    const svg = renderShopPlaceholderSvg('<a href="x">Müller & Söhne</a>', 'handwerker');

    expect(svg).not.toContain('<a ');
    expect(svg).toContain('&#60;a href=&#34;x&#34;&#62;Müller &#38; Söhne&#60;/a&#62;');
  });
});

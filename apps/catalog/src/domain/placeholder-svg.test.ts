import { describe, expect, it } from 'vitest';
import { escapeXml } from '@msa/service-kit';
import { renderProductPlaceholderSvg } from './placeholder-svg.js';

describe('renderProductPlaceholderSvg', () => {
  it('shows the title and the first colour', () => {
    const svg = renderProductPlaceholderSvg('Bio Hoodie', 'Flaschengrün');

    expect(svg).toMatch(/^<svg xmlns="http:\/\/www.w3.org\/2000\/svg"/);
    expect(svg).toContain('>Bio Hoodie</text>');
    expect(svg).toContain('>Flaschengrün</text>');
    expect(svg).toContain('fill="#1f4d36"');
  });

  it('escapes markup in texts from the source', () => {
    const svg = renderProductPlaceholderSvg('<script>alert("x")</script> & Co', `Rot'"`);

    expect(svg).not.toContain('<script>');
    expect(svg).toContain('&#60;script&#62;alert(&#34;x&#34;)&#60;/script&#62; &#38; Co');
    expect(svg).toContain('Rot&#39;&#34;');
  });
});

describe('escapeXml', () => {
  it('leaves plain text alone', () => {
    expect(escapeXml('Schürze 90 × 70 cm')).toBe('Schürze 90 × 70 cm');
  });
});

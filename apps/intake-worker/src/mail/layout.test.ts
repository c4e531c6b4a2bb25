import { describe, expect, it } from 'vitest';
import { renderHtml, renderText } from './layout.js';

describe('renderHtml', () => {
  it('writes titles, labels, values and the footer as text, never as markup', () => {
    const html = renderHtml(
      'Anfrage <b>',
      ["Guten Tag, O'Brien & Co."],
      [{ title: 'Shop "A"', rows: [{ label: '<i>Name</i>', value: '<script>alert(1)</script>\nzweite Zeile' }] }],
      [],
      'de',
      { text: 'Datenschutz <hier>', url: 'https://api.shop.example/privacy?lang=de&x="1"' },
    );

    expect(html).not.toMatch(/<(script|b|i)>/);
    expect(html).toContain('<title>Anfrage &lt;b&gt;</title>');
    expect(html).toContain('<p>Guten Tag, O&#39;Brien &amp; Co.</p>');
    expect(html).toContain('<h3>Shop &quot;A&quot;</h3>');
    expect(html).toContain('<td class="l">&lt;i&gt;Name&lt;/i&gt;</td><td>&lt;script&gt;alert(1)&lt;/script&gt;<br>zweite Zeile</td>');
    expect(html).toContain('<a href="https://api.shop.example/privacy?lang=de&amp;x=&quot;1&quot;">Datenschutz &lt;hier&gt;</a>');
  });

  it('leaves the plain text part as typed', () => {
    expect(renderText(['<b> & "x"'], [])).toBe('<b> & "x"\n');
  });
});

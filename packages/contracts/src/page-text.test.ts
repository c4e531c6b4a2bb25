import { describe, expect, it } from 'vitest';
import { escapeHtml } from './page-text.js';

describe('escapeHtml', () => {
  it('escapes every character that can end text or an attribute, single quotes included', () => {
    expect(escapeHtml(`<a href='x' title="y">&</a>`)).toBe('&lt;a href=&#39;x&#39; title=&quot;y&quot;&gt;&amp;&lt;/a&gt;');
  });

  it('escapes an ampersand once, so an escaped value read back is the value typed', () => {
    expect(escapeHtml('&amp; &lt;')).toBe('&amp;amp; &amp;lt;');
  });

  it('leaves text without those characters as it is', () => {
    expect(escapeHtml('Grüße, 10 € – ok')).toBe('Grüße, 10 € – ok');
  });
});

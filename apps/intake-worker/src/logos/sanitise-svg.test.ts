import { describe, expect, it } from 'vitest';
import { sniffLogoType } from './magic-bytes.js';
import { sanitiseSvg } from './sanitise-svg.js';

const svg = (inner: string, rootAttributes = '') =>
  Buffer.from(
    `<?xml version="1.0" encoding="UTF-8"?>\n<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" viewBox="0 0 10 10"${rootAttributes}>${inner}</svg>`,
  );

function cleaned(data: Buffer): string {
  const result = sanitiseSvg(data);
  if (!result.ok) throw new Error(`refused: ${result.reason}`);
  return result.data.toString('utf8');
}

describe('sanitiseSvg', () => {
  it('keeps an ordinary logo: shapes, gradients, a style sheet, <use> of its own shapes, camelCase names', () => {
    const out = cleaned(
      svg(
        '<style>.a{fill:#c00}</style><defs><linearGradient id="g"><stop offset="0" stop-color="#fff"/></linearGradient><path id="p" d="M0 0L5 5"/></defs>' +
          '<use xlink:href="#p"/><use href="#p" x="2"/><circle class="a" r="4" cx="5" cy="5" fill="url(#g)"/><text x="1" y="9">TSV &amp; Co</text>',
      ),
    );

    expect(out).toContain('viewBox="0 0 10 10"');
    expect(out).toContain('<linearGradient id="g">');
    expect(out).toContain('<use xlink:href="#p"/>');
    expect(out).toContain('<use href="#p" x="2"/>');
    expect(out).toContain('fill="url(#g)"');
    expect(out).toContain('.a{fill:#c00}');
    expect(out).toContain('TSV &amp; Co');
    expect(sniffLogoType(Buffer.from(out))).toBe('svg');
  });

  it.each([
    ['a script element', '<script>alert(document.cookie)</script><circle r="1"/>', /<script|alert/i],
    ['an onload handler', '<circle r="1" onload="alert(1)" onclick="alert(2)"/>', /onload|onclick|alert/i],
    ['a foreignObject with HTML', '<foreignObject width="10" height="10"><div xmlns="http://www.w3.org/1999/xhtml"><iframe src="https://evil.example"></iframe></div></foreignObject>', /foreignObject|iframe|div|evil/i],
    ['an external image href', '<image href="https://evil.example/track.png" width="10" height="10"/>', /evil\.example/],
    ['xlink:href javascript:', '<a xlink:href="javascript:alert(1)"><circle r="1"/></a>', /javascript|alert/i],
    ['<use href> to another server', '<use href="https://evil.example/sprite.svg#x"/>', /evil\.example/],
    ['CSS url() in a style attribute', '<circle r="1" style="fill:red;background:url(https://evil.example/t.png)"/>', /evil\.example/],
    ['CSS url() and @import in a style sheet', '<style>@import url(https://evil.example/a.css); .a{fill:url(https://evil.example/p)}</style><circle class="a" r="1"/>', /evil\.example|@import/],
    ['a CSS escape spelling url(', '<circle r="1" style="fill:\\75rl(https://evil.example/p)"/>', /evil\.example/],
    ['a presentation attribute loading from outside', '<circle r="1" filter="url(https://evil.example/f.svg#f)"/>', /evil\.example/],
    ['an animation that sets href', '<a href="#x"><set attributeName="href" to="javascript:alert(1)"/><circle r="1"/></a>', /javascript|<set/i],
  ])('removes %s', (_case, inner, forbidden) => {
    const out = cleaned(svg(inner));

    expect(out).not.toMatch(forbidden);
    expect(out).toMatch(/^<\?xml version="1.0" encoding="UTF-8"\?>\n<svg /);
  });

  it('keeps an embedded raster image and drops an embedded SVG document', () => {
    const out = cleaned(svg('<image href="data:image/png;base64,iVBORw0KGgo=" width="1" height="1"/><image href="data:image/svg+xml;base64,PHN2Zz4=" width="1" height="1"/>'));

    expect(out).toContain('href="data:image/png;base64,iVBORw0KGgo="');
    expect(out).not.toContain('image/svg+xml');
  });

  it('refuses an SVG that declares entities (XXE), and never reads the file it names', () => {
    const xxe = Buffer.from(
      '<?xml version="1.0"?>\n<!DOCTYPE svg [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>\n<svg xmlns="http://www.w3.org/2000/svg"><text>&xxe;</text></svg>',
    );

    expect(sanitiseSvg(xxe)).toEqual({ ok: false, reason: 'declares entities' });
  });

  it('drops a DOCTYPE without entities, as illustration programs write it', () => {
    const out = cleaned(
      Buffer.from(
        '<?xml version="1.0"?>\n<!DOCTYPE svg PUBLIC "-//W3C//DTD SVG 1.1//EN" "http://www.w3.org/Graphics/SVG/1.1/DTD/svg11.dtd">\n<svg xmlns="http://www.w3.org/2000/svg"><rect width="1" height="1"/></svg>',
      ),
    );

    expect(out).not.toMatch(/DOCTYPE|w3\.org\/Graphics/);
    expect(out).toContain('<rect width="1" height="1"/>');
  });

  it('refuses a file with nothing of an SVG left', () => {
    expect(sanitiseSvg(Buffer.from('<svg:x xmlns:svg="urn:x"><script>alert(1)</script></svg:x>'))).toEqual({ ok: false, reason: 'no SVG element left' });
  });
});

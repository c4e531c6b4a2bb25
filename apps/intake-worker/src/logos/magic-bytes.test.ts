import { describe, expect, it } from 'vitest';
import { sniffLogoType } from './magic-bytes.js';

const PNG_HEAD = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]);
const JPEG_HEAD = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 0x10, 0x4a, 0x46]);

describe('sniffLogoType', () => {
  it('recognises PNG by its signature', () => {
    expect(sniffLogoType(PNG_HEAD)).toBe('png');
  });

  it('recognises JPEG by its signature', () => {
    expect(sniffLogoType(JPEG_HEAD)).toBe('jpeg');
  });

  it.each([
    ['a bare root element', '<svg xmlns="http://www.w3.org/2000/svg"></svg>'],
    ['an XML declaration first', '<?xml version="1.0" encoding="UTF-8"?>\n<svg viewBox="0 0 10 10"/>'],
    ['a byte-order mark and white space first', '\uFEFF  \n<svg>'],
    ['a comment and a DOCTYPE first', '<?xml version="1.0"?>\n<!-- Generator: Illustrator -->\n<!DOCTYPE svg PUBLIC "-//W3C//DTD SVG 1.1//EN" "http://www.w3.org/Graphics/SVG/1.1/DTD/svg11.dtd">\n<svg>'],
  ])('recognises SVG with %s', (_case, text) => {
    expect(sniffLogoType(Buffer.from(text, 'utf8'))).toBe('svg');
  });

  it.each([
    ['an HTML page', '<!doctype html><html><body><svg></svg></body></html>'],
    ['HTML without a doctype', '<html><svg></svg></html>'],
    ['text mentioning svg later', 'hello <svg>'],
    ['an element whose name starts with svg', '<svgfoo>'],
    ['JSON', '{"logo":"<svg>"}'],
    ['a GIF', 'GIF89a\u0001\u0000'],
    ['nothing', ''],
  ])('refuses %s', (_case, text) => {
    expect(sniffLogoType(Buffer.from(text, 'utf8'))).toBeNull();
  });

  it('refuses a truncated PNG signature', () => {
    expect(sniffLogoType(PNG_HEAD.subarray(0, 5))).toBeNull();
  });

  it('ignores what the file claims to be elsewhere (only the bytes count)', () => {
    expect(sniffLogoType(Buffer.from('GIF89a.png'))).toBeNull();
  });
});

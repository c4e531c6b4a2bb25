export type LogoType = 'png' | 'jpeg' | 'svg';

export const LOGO_CONTENT_TYPES: Record<LogoType, string> = {
  png: 'image/png',
  jpeg: 'image/jpeg',
  svg: 'image/svg+xml',
};

const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
const JPEG = Buffer.from([0xff, 0xd8, 0xff]);

/** How far into a file the `<svg` root may start (XML declaration, comments, DOCTYPE before it). */
const SVG_HEAD_BYTES = 4096;

/*
 * Before the root element an SVG file may carry a byte-order mark, white
 * space, an XML declaration, comments and a DOCTYPE (illustration programs
 * write all of them). Anything else, an HTML page above all, is not a logo.
 */
const SVG_PROLOG = /^\uFEFF?\s*(?:<\?xml[^>]*\?>\s*)?(?:(?:<!--[\s\S]*?-->|<!DOCTYPE[^>[]*(?:\[[\s\S]*?\])?\s*>)\s*)*<svg[\s>/]/i;

/**
 * The logo type by the file's first bytes, never by the server's
 * Content-Type or the URL's extension, which any page can claim.
 */
export function sniffLogoType(data: Buffer): LogoType | null {
  if (data.length >= PNG.length && data.subarray(0, PNG.length).equals(PNG)) return 'png';
  if (data.length >= JPEG.length && data.subarray(0, JPEG.length).equals(JPEG)) return 'jpeg';
  const head = data.subarray(0, SVG_HEAD_BYTES).toString('utf8');
  return SVG_PROLOG.test(head) ? 'svg' : null;
}

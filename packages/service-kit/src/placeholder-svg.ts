// @module `renderPlaceholderSvg({ width, height, fill, ink, title, subtitle })`, `escapeXml`: the generated product and shop pictures
// A self-contained SVG placeholder image: a coloured card with a title and a
// subtitle. Every text is escaped; the services send it with a CSP that
// forbids scripts, so a name from a data feed can never run in a browser.

export function escapeXml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

export interface PlaceholderSvgOptions {
  width: number;
  height: number;
  /** Background colour (a CSS colour the caller chose, never user text). */
  fill: string;
  /** Text colour. */
  ink: string;
  title: string;
  subtitle?: string;
}

export function renderPlaceholderSvg({ width, height, fill, ink, title, subtitle = '' }: PlaceholderSvgOptions): string {
  // About 0.55 em per character in a sans-serif face: shrink long titles to fit the card.
  const size = Math.min(34, Math.floor((width - 60) / (0.55 * Math.max(title.length, 1))));
  const mid = height / 2;
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" role="img">`,
    `<title>${escapeXml(title)}</title>`,
    `<rect width="${width}" height="${height}" fill="${fill}"/>`,
    `<text x="${width / 2}" y="${mid - 10}" text-anchor="middle" font-family="sans-serif" font-size="${size}" fill="${ink}">${escapeXml(title)}</text>`,
    `<text x="${width / 2}" y="${mid + 40}" text-anchor="middle" font-family="sans-serif" font-size="22" fill="${ink}">${escapeXml(subtitle)}</text>`,
    '</svg>',
    '',
  ].join('\n');
}

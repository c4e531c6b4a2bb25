// A generated stand-in for a product photo: the title on a swatch of the
// product's first colour. Titles come from the catalog source, which may be a
// remote feed, so every text is escaped before it lands in the SVG.

const SWATCHES: Record<string, string> = {
  schwarz: '#1f1f1f',
  weiss: '#f4f4f2',
  navy: '#1d2a4d',
  'heather grey': '#a7a9ac',
  flaschengruen: '#1f4d36',
  bordeaux: '#6d1a2b',
  royalblau: '#2a4fb0',
  rot: '#c0262d',
  sand: '#d8c7a4',
  beige: '#d9c8a9',
  natur: '#efe6d2',
  khaki: '#8f8a5f',
  anthrazit: '#3a3d40',
  altrosa: '#d7a6a6',
  sonnengelb: '#f2c230',
  senfgelb: '#d5a021',
  olivgruen: '#5b6236',
  neongelb: '#e4f222',
};

export function escapeXml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function swatch(color: string | undefined): string {
  const key = (color ?? '')
    .split('/')[0]!
    .trim()
    .toLowerCase()
    .replace(/ß/g, 'ss')
    .replace(/ü/g, 'ue')
    .replace(/ä/g, 'ae')
    .replace(/ö/g, 'oe');
  return SWATCHES[key] ?? '#c9ccd1';
}

/** Dark or light text, whichever reads on the swatch. */
function inkFor(hex: string): string {
  const n = Number.parseInt(hex.slice(1), 16);
  const luminance = 0.299 * ((n >> 16) & 255) + 0.587 * ((n >> 8) & 255) + 0.114 * (n & 255);
  return luminance > 150 ? '#1f1f1f' : '#ffffff';
}

export function renderPlaceholderSvg(title: string, color: string | undefined): string {
  const fill = swatch(color);
  const ink = inkFor(fill);
  const label = color ? escapeXml(color) : '';
  // About 0.55 em per character in a sans-serif face: shrink long titles to fit 540 px.
  const size = Math.min(34, Math.floor(540 / (0.55 * Math.max(title.length, 1))));
  return [
    '<svg xmlns="http://www.w3.org/2000/svg" width="600" height="600" viewBox="0 0 600 600" role="img">',
    `<title>${escapeXml(title)}</title>`,
    `<rect width="600" height="600" fill="${fill}"/>`,
    `<text x="300" y="290" text-anchor="middle" font-family="sans-serif" font-size="${size}" fill="${ink}">${escapeXml(title)}</text>`,
    `<text x="300" y="340" text-anchor="middle" font-family="sans-serif" font-size="22" fill="${ink}">${label}</text>`,
    '</svg>',
    '',
  ].join('\n');
}

// A generated stand-in for a product photo: the title on a swatch of the
// product's first colour. Titles come from the catalog source, which may be a
// remote feed, so every text is escaped before it lands in the SVG.
import { renderPlaceholderSvg } from '@msa/service-kit';

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

export function renderProductPlaceholderSvg(title: string, color: string | undefined): string {
  const fill = swatch(color);
  return renderPlaceholderSvg({ width: 600, height: 600, fill, ink: inkFor(fill), title, subtitle: color ?? '' });
}

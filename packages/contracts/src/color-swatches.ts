// The catalog's colour names as screen colours, written once: views tint a
// garment with them, and every name the catalog uses has an entry (the test
// beside this file reads the catalog). A two-tone name ("Navy/Weiß") is body
// and trim, each a name of this table.

/** sRGB hex of each single colour name the catalog lists. */
export const COLOR_SWATCHES = {
  Schwarz: '#1c1c1e',
  Weiß: '#f7f7f5',
  Natur: '#efe6d2',
  Beige: '#d9c7a7',
  Sand: '#c9b38a',
  Khaki: '#8f8660',
  Olivgrün: '#5b6236',
  Flaschengrün: '#1f4d36',
  Navy: '#1d2a4a',
  Royalblau: '#2450a8',
  'Heather Grey': '#a4a7ab',
  Anthrazit: '#3c3f44',
  Bordeaux: '#6d1f2f',
  Rot: '#c62a2f',
  Altrosa: '#d6a4a4',
  Sonnengelb: '#f4c21b',
  Senfgelb: '#c9a227',
  Neongelb: '#e5f23a',
} as const satisfies Record<string, `#${string}`>;

export type ColorName = keyof typeof COLOR_SWATCHES;

/** What a view paints for one colour name: the body and, for a two-tone name, the trim. */
export interface ColorSwatch {
  name: string;
  body: string;
  trim: string | null;
}

/** Neutral grey for a name outside the table, so an unknown colour still draws. */
export const UNKNOWN_SWATCH = '#9a9a9a';

function hexOf(name: string): string | null {
  return Object.hasOwn(COLOR_SWATCHES, name) ? COLOR_SWATCHES[name as ColorName] : null;
}

/** The swatch of a catalog colour name; null when a part of it is not in the table. */
export function colorSwatch(name: string): ColorSwatch | null {
  const [body, trim, ...rest] = name.split('/').map((part) => part.trim());
  if (body === undefined || rest.length > 0) return null;
  const bodyHex = hexOf(body);
  const trimHex = trim === undefined ? null : hexOf(trim);
  if (bodyHex === null || (trim !== undefined && trimHex === null)) return null;
  return { name, body: bodyHex, trim: trimHex };
}

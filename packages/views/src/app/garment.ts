// A garment drawn as an inline SVG silhouette per product type, tinted in a
// catalog colour: the catalog has no photos, and a view loads nothing from
// outside. Body paths take the colour; trim (collar, cuffs, straps) takes the
// second colour of a two-tone name, else a shade of the body.
import { colorSwatch, UNKNOWN_SWATCH } from '@msa/contracts/color-swatches';
import { esc } from './format.js';

interface Shape {
  body: string[];
  trim: string[];
}

const SHIRT = 'M38 14 L22 20 L6 42 L20 52 L28 42 L28 108 L92 108 L92 42 L100 52 L114 42 L98 20 L82 14 Q60 30 38 14 Z';
const LONG = 'M38 14 L22 20 L8 86 L20 90 L28 48 L28 108 L92 108 L92 48 L100 90 L112 86 L98 20 L82 14 Q60 30 38 14 Z';

const SHAPES: Record<string, Shape> = {
  shirt: { body: [SHIRT], trim: ['M38 14 Q60 30 82 14 L78 12 Q60 24 42 12 Z'] },
  polo: { body: [SHIRT], trim: ['M38 14 L52 30 L60 22 L68 30 L82 14 L72 12 L60 20 L48 12 Z', 'M58 24 L62 24 L62 46 L58 46 Z'] },
  long: { body: [LONG], trim: ['M38 14 Q60 30 82 14 L78 12 Q60 24 42 12 Z', 'M8 86 L20 90 L19 95 L7 91 Z', 'M100 90 L112 86 L113 91 L101 95 Z'] },
  hoodie: {
    body: [LONG, 'M40 16 Q60 -6 80 16 Q70 30 60 30 Q50 30 40 16 Z'],
    trim: ['M46 60 L74 60 L78 84 L42 84 Z', 'M56 30 L57 46 M64 30 L63 46'],
  },
  jacket: { body: [LONG], trim: ['M59 22 L61 22 L61 108 L59 108 Z', 'M38 14 L50 34 L60 22 L70 34 L82 14 L72 10 L60 18 L48 10 Z'] },
  vest: { body: ['M38 14 L26 22 L30 50 L28 108 L92 108 L90 50 L94 22 L82 14 Q74 40 60 40 Q46 40 38 14 Z'], trim: ['M59 40 L61 40 L61 108 L59 108 Z'] },
  cap: { body: ['M22 78 Q22 34 60 32 Q98 34 98 78 Z'], trim: ['M14 78 L106 78 Q104 90 60 88 Q34 88 14 78 Z', 'M56 30 L64 30 L64 34 L56 34 Z'] },
  beanie: { body: ['M26 86 Q24 36 60 32 Q96 36 94 86 Z'], trim: ['M22 84 L98 84 L98 102 L22 102 Z', 'M52 22 Q60 12 68 22 Q60 30 52 22 Z'] },
  hat: { body: ['M36 76 Q38 36 60 36 Q82 36 84 76 Z'], trim: ['M8 80 Q60 64 112 80 Q60 96 8 80 Z', 'M36 66 L84 66 L84 74 L36 74 Z'] },
  bag: { body: ['M22 44 L98 44 L94 110 L26 110 Z'], trim: ['M40 44 Q40 10 60 10 Q80 10 80 44 L74 44 Q74 16 60 16 Q46 16 46 44 Z'] },
  backpack: { body: ['M30 30 Q30 16 60 16 Q90 16 90 30 L92 108 L28 108 Z'], trim: ['M38 64 L82 64 L82 96 L38 96 Z', 'M50 6 Q60 0 70 6 L70 16 L50 16 Z'] },
  apron: { body: ['M40 20 L80 20 L80 46 L98 56 L96 110 L24 110 L22 56 L40 46 Z'], trim: ['M40 20 Q60 -4 80 20 L76 20 Q60 4 44 20 Z', 'M44 70 L76 70 L76 88 L44 88 Z'] },
  towel: { body: ['M16 26 L104 26 L104 94 L16 94 Z'], trim: ['M16 80 L104 80 L104 86 L16 86 Z', 'M16 34 L104 34 L104 40 L16 40 Z'] },
};

const SHAPE_OF_TYPE: Record<string, keyof typeof SHAPES> = {
  'T-Shirt': 'shirt',
  Hemd: 'polo',
  Polo: 'polo',
  Longsleeve: 'long',
  Sweatshirt: 'long',
  Hoodie: 'hoodie',
  Sweatjacke: 'jacket',
  Jacke: 'jacket',
  Weste: 'vest',
  Cap: 'cap',
  Mütze: 'beanie',
  Hut: 'hat',
  Tasche: 'bag',
  Rucksack: 'backpack',
  Schürze: 'apron',
  Handtuch: 'towel',
};

/** A darker or lighter shade of a #rrggbb colour, for trim and outline. */
export function shade(hex: string, amount: number): string {
  const n = Number.parseInt(hex.slice(1), 16);
  const part = (shift: number) => Math.max(0, Math.min(255, Math.round(((n >> shift) & 255) * (1 + amount))));
  return `#${[16, 8, 0].map((s) => part(s).toString(16).padStart(2, '0')).join('')}`;
}

function isLight(hex: string): boolean {
  const n = Number.parseInt(hex.slice(1), 16);
  return 0.299 * ((n >> 16) & 255) + 0.587 * ((n >> 8) & 255) + 0.114 * (n & 255) > 150;
}

/** The SVG of a product type in a catalog colour; an unknown type is drawn as a T-shirt. */
export function garmentSvg(type: string | undefined, colorName: string | undefined, label: string): string {
  const shape = SHAPES[SHAPE_OF_TYPE[type ?? ''] ?? 'shirt'] ?? SHAPES.shirt!;
  const swatch = colorName ? colorSwatch(colorName) : null;
  const body = swatch?.body ?? UNKNOWN_SWATCH;
  const trim = swatch?.trim ?? shade(body, isLight(body) ? -0.18 : 0.35);
  const outline = isLight(body) ? '#8a8a8a' : shade(body, -0.4);
  const paths = [
    ...shape.body.map((d) => `<path d="${d}" fill="${body}" stroke="${outline}" stroke-width="1.5" stroke-linejoin="round"/>`),
    ...shape.trim.map((d) => `<path d="${d}" fill="${trim}" stroke="${trim}" stroke-width="1.5" stroke-linejoin="round"/>`),
  ];
  return `<svg class="garment" viewBox="0 0 120 120" role="img" aria-label="${esc(label)}" xmlns="http://www.w3.org/2000/svg">${paths.join('')}</svg>`;
}

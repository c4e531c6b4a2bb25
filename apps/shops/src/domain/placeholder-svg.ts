// A generated stand-in for a shop's picture: the shop name on a colour of its
// category. Names come from the shops source, which may be a remote feed, so
// every text is escaped before it lands in the SVG.
import type { ShopEntry } from '../source/shop-entry.js';

const CATEGORY_COLORS: Record<ShopEntry['category'], { fill: string; label: string }> = {
  schule: { fill: '#2a4fb0', label: 'Schule' },
  verein: { fill: '#1f4d36', label: 'Verein' },
  unternehmen: { fill: '#1d2a4d', label: 'Unternehmen' },
  handwerker: { fill: '#6b4a2b', label: 'Handwerk' },
  gastro: { fill: '#6d1a2b', label: 'Gastronomie' },
  '': { fill: '#3a3d40', label: '' },
};

export function escapeXml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

export function renderShopPlaceholderSvg(name: string, category: ShopEntry['category']): string {
  const { fill, label } = CATEGORY_COLORS[category];
  // About 0.55 em per character in a sans-serif face: shrink long names to fit 540 px.
  const size = Math.min(34, Math.floor(540 / (0.55 * Math.max(name.length, 1))));
  return [
    '<svg xmlns="http://www.w3.org/2000/svg" width="600" height="400" viewBox="0 0 600 400" role="img">',
    `<title>${escapeXml(name)}</title>`,
    `<rect width="600" height="400" fill="${fill}"/>`,
    `<text x="300" y="190" text-anchor="middle" font-family="sans-serif" font-size="${size}" fill="#ffffff">${escapeXml(name)}</text>`,
    `<text x="300" y="240" text-anchor="middle" font-family="sans-serif" font-size="22" fill="#ffffff">${label}</text>`,
    '</svg>',
    '',
  ].join('\n');
}

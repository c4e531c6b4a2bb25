// A generated stand-in for a shop's picture: the shop name on a colour of its
// category. Names come from the shops source, which may be a remote feed, so
// every text is escaped before it lands in the SVG.
import { renderPlaceholderSvg } from '@msa/service-kit';
import type { ShopEntry } from '../source/shop-entry.js';

const CATEGORY_COLORS: Record<ShopEntry['category'], { fill: string; label: string }> = {
  schule: { fill: '#2a4fb0', label: 'Schule' },
  verein: { fill: '#1f4d36', label: 'Verein' },
  unternehmen: { fill: '#1d2a4d', label: 'Unternehmen' },
  handwerker: { fill: '#6b4a2b', label: 'Handwerk' },
  gastro: { fill: '#6d1a2b', label: 'Gastronomie' },
  '': { fill: '#3a3d40', label: '' },
};

export function renderShopPlaceholderSvg(name: string, category: ShopEntry['category']): string {
  const { fill, label } = CATEGORY_COLORS[category];
  return renderPlaceholderSvg({ width: 600, height: 400, fill, ink: '#ffffff', title: name, subtitle: label });
}

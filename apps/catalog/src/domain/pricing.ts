import { CURRENCY, SERVICE_FACTS, type Pricing } from '@msa/contracts';
import type { CatalogIndex } from './catalog-index.js';

// Texts of the pricing overview. They restate the business terms of the
// specification (§1, §8): setup free, no minimum order, gross prices, DE/AT.
export const SHOP_SETUP_DESCRIPTION =
  `Setting up a shop is free: it goes live within ${SERVICE_FACTS.replyWithinHours} hours, each member orders and pays individually, ` +
  'and only ordered products are paid.';
export const PRICE_BASIS =
  'All prices are final consumer prices in EUR, gross including 19 % VAT, per piece including the print. ' +
  'Fields named netto are net prices. quantity_prices_dtf lists volume tiers: the price applies from the quantity in `ab`.';
export const DELIVERY_AREA = ['DE', 'AT'];

const DECORATION_TEXT = {
  dtf: 'DTF print (direct-to-film): full-colour print for every product; always available, recommended.',
  stick: 'Embroidery: currently paused. Products list it where the garment allows it; requests for it get a warning.',
  dtg: 'DTG print (direct-to-garment): digital print directly onto the textile, where listed.',
} as const;

/** The pricing overview over every product of the catalog, links under `base`. */
export function buildPricing(index: CatalogIndex, base: string): Pricing {
  const products = index.allProducts(base);
  // dtf and stick always appear (dtf is the technique, stick is announced as
  // paused); dtg only when some product offers it.
  const decoration: Record<string, string> = { dtf: DECORATION_TEXT.dtf, stick: DECORATION_TEXT.stick };
  if (products.some((p) => p.decoration?.includes('dtg'))) decoration.dtg = DECORATION_TEXT.dtg;

  return {
    currency: CURRENCY,
    shop_setup: { price: 0, currency: CURRENCY, description: SHOP_SETUP_DESCRIPTION },
    minimum_order_quantity: 1,
    price_basis: PRICE_BASIS,
    delivery_area: DELIVERY_AREA,
    decoration,
    products: products.map((p) => ({
      handle: p.handle,
      title: p.title,
      url: p.url,
      currency: p.currency,
      printed_price_from: p.printed_price_from ?? null,
      blank_price_from: p.blank_price_from ?? null,
      quantity_prices_dtf: p.quantity_prices_dtf ?? null,
      decoration: p.decoration ?? [],
    })),
  };
}

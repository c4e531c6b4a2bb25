import { CURRENCY, type Product } from '@msa/contracts';
import type { CatalogEntry } from '../source/catalog-entry.js';

/** `<PUBLIC_BASE_URL>`, or `<PUBLIC_BASE_URL>/sandbox` for a sandbox call: the root of every link we return. */
export function linkBase(publicBaseUrl: string, sandbox: boolean): string {
  return sandbox ? `${publicBaseUrl}/sandbox` : publicBaseUrl;
}

export function productUrl(base: string, handle: string): string {
  return `${base}/v1/products/${handle}`;
}

export function productImageUrl(base: string, handle: string): string {
  return `${base}/images/products/${handle}.svg`;
}

/** The wire Product: the source entry plus the derived url, currency and image, in the specification's field order. */
export function toProduct(entry: CatalogEntry, base: string): Product {
  return {
    handle: entry.handle,
    title: entry.title,
    url: productUrl(base, entry.handle),
    currency: CURRENCY,
    type: entry.type,
    available: entry.available,
    tags: entry.tags,
    blank_price_from: entry.blank_price_from,
    printed_price_from: entry.printed_price_from,
    quantity_prices_dtf: entry.quantity_prices_dtf,
    decoration: entry.decoration,
    colors: entry.colors,
    sizes: entry.sizes,
    image: entry.image !== undefined ? entry.image : productImageUrl(base, entry.handle),
    description: entry.description,
  };
}

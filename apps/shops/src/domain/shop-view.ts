import type { Shop } from '@msa/contracts';
import type { ShopEntry } from '../source/shop-entry.js';

/**
 * Where the public merch shops live: `<SHOP_SITE_BASE_URL>/<slug>`. A fixed
 * host of the shop platform, not of this API, so it is not configuration.
 */
export const SHOP_SITE_BASE_URL = 'https://shop.example-merch.de';

/** `<PUBLIC_BASE_URL>`, or `<PUBLIC_BASE_URL>/sandbox` for a sandbox call: the root of the links we serve. */
export function linkBase(publicBaseUrl: string, sandbox: boolean): string {
  return sandbox ? `${publicBaseUrl}/sandbox` : publicBaseUrl;
}

export function toShop(entry: ShopEntry, base: string): Shop {
  return {
    name: entry.name,
    category: entry.category,
    url: `${SHOP_SITE_BASE_URL}/${entry.slug}`,
    password_protected: entry.password_protected,
    image: entry.image_path === null ? null : `${base}${entry.image_path}`,
  };
}

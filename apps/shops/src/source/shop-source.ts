// Where the public shop list comes from. The embedded data file is the
// default; an HTTP JSON feed replaces it when SHOPS_SOURCE_URL is set. Either
// one answers the whole list, parsed and checked, or throws: a feed that is
// half right is treated like one that is down, so the last good copy stays in
// service.
import { fileURLToPath } from 'node:url';
import { createFileSource, createHttpSource, type HttpSourceOptions, type Source } from '@msa/service-kit';
import { ShopFeed, type ShopEntry } from './shop-entry.js';

export type ShopsSource = Source<ShopEntry[]>;

/** The data file shipped with the app (`data/shops.json`). */
export const DEFAULT_SHOPS_FILE = fileURLToPath(new URL('../../data/shops.json', import.meta.url));

export function createShopsFileSource(path = DEFAULT_SHOPS_FILE): ShopsSource {
  return createFileSource(path, ShopFeed);
}

export function createShopsHttpSource(url: string, opts: HttpSourceOptions): ShopsSource {
  return createHttpSource(url, ShopFeed, opts);
}

export type { HttpSourceOptions, Source };

// Where the catalog comes from. The embedded data file is the default; an HTTP
// JSON feed replaces it when CATALOG_SOURCE_URL is set. Either one answers the
// whole list, parsed and checked, or throws: a feed that is half right is
// treated like one that is down, so the last good copy stays in service.
import { fileURLToPath } from 'node:url';
import { createFileSource, createHttpSource, type HttpSourceOptions, type Source } from '@msa/service-kit';
import { CatalogFeed, type CatalogEntry } from './catalog-entry.js';

export type CatalogSource = Source<CatalogEntry[]>;

/** The data file shipped with the app (`data/products.json`). */
export const DEFAULT_CATALOG_FILE = fileURLToPath(new URL('../../data/products.json', import.meta.url));

export function createCatalogFileSource(path = DEFAULT_CATALOG_FILE): CatalogSource {
  return createFileSource(path, CatalogFeed);
}

export function createCatalogHttpSource(url: string, opts: HttpSourceOptions): CatalogSource {
  return createHttpSource(url, CatalogFeed, opts);
}

export type { HttpSourceOptions, Source };

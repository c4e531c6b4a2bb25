// Where the catalog comes from. The embedded data file is the default; an HTTP
// JSON feed replaces it when CATALOG_SOURCE_URL is set. Either one answers the
// whole list, parsed and checked, or throws: a feed that is half right is
// treated like one that is down, so the last good copy stays in service.
// TODO(issue 2): Source, createFileSource and createHttpSource are the same as
// in apps/shops; move them into @msa/service-kit with cached-source.ts.
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { z } from 'zod';
import { CatalogFeed, type CatalogEntry } from './catalog-entry.js';

export interface Source<T> {
  /** Names the source in log lines (a file path or URL). */
  readonly name: string;
  load(): Promise<T>;
}

export type CatalogSource = Source<CatalogEntry[]>;

/** The data file shipped with the app (`data/products.json`). */
export const DEFAULT_CATALOG_FILE = fileURLToPath(new URL('../../data/products.json', import.meta.url));

export function createFileSource<T>(path: string, schema: z.ZodType<T>): Source<T> {
  return {
    name: path,
    async load() {
      const text = await readFile(path, 'utf8');
      return parseFeed(schema, JSON.parse(text) as unknown, path);
    },
  };
}

export interface HttpSourceOptions {
  timeoutMs: number;
}

export function createHttpSource<T>(url: string, schema: z.ZodType<T>, { timeoutMs }: HttpSourceOptions): Source<T> {
  return {
    name: url,
    async load() {
      const res = await fetch(url, { headers: { accept: 'application/json' }, signal: AbortSignal.timeout(timeoutMs) });
      if (!res.ok) {
        await res.body?.cancel();
        throw new Error(`${url} answered ${res.status}`);
      }
      return parseFeed(schema, await res.json(), url);
    },
  };
}

function parseFeed<T>(schema: z.ZodType<T>, json: unknown, name: string): T {
  const parsed = schema.safeParse(json);
  if (parsed.success) return parsed.data;
  const first = parsed.error.issues.slice(0, 5).map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`);
  throw new Error(`${name} does not match the expected shape (${first.join('; ')})`);
}

export function createCatalogFileSource(path = DEFAULT_CATALOG_FILE): CatalogSource {
  return createFileSource(path, CatalogFeed);
}

export function createCatalogHttpSource(url: string, opts: HttpSourceOptions): CatalogSource {
  return createHttpSource(url, CatalogFeed, opts);
}

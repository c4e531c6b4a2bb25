// @module `createFileSource` / `createHttpSource`: a data file or JSON feed, parsed whole with zod or rejected
// Sources of read-only data that a service keeps in memory (the catalog, the
// shop list): a data file shipped with the app or an HTTP JSON feed, each
// answering the whole list, parsed and checked, or throwing. A feed that is
// half right is treated like one that is down.
import { readFile } from 'node:fs/promises';
import type { z } from 'zod';

export interface Source<T> {
  /** Names the source in log lines (a file path or URL). */
  readonly name: string;
  load(): Promise<T>;
}

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

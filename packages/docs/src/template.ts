import { readFileSync } from 'node:fs';

const PLACEHOLDER = /\{\{([A-Z0-9_]+)\}\}/g;

/** Thrown when a source names a placeholder nobody fills: a document must never ship with `{{…}}` in it. */
export class TemplateError extends Error {
  constructor(readonly missing: string[]) {
    super(`Unfilled placeholders: ${missing.join(', ')}`);
    this.name = 'TemplateError';
  }
}

/** Replaces every `{{NAME}}` with `vars.NAME`; an unknown name throws rather than leaking into a document. */
export function fillTemplate(source: string, vars: Record<string, string | number>): string {
  const missing = new Set<string>();
  const out = source.replace(PLACEHOLDER, (whole, name: string) => {
    const value = vars[name];
    if (value === undefined) {
      missing.add(name);
      return whole;
    }
    return String(value);
  });
  if (missing.size > 0) throw new TemplateError([...missing]);
  return out;
}

export function placeholdersIn(text: string): string[] {
  return [...text.matchAll(PLACEHOLDER)].map((m) => m[1]!);
}

const cache = new Map<string, string>();

/** A Markdown source from `content/`, read once. The files sit beside the compiled code (copied at build). */
export function loadSource(name: string): string {
  let text = cache.get(name);
  if (text === undefined) {
    text = readFileSync(new URL(`./content/${name}`, import.meta.url), 'utf8');
    cache.set(name, text);
  }
  return text;
}

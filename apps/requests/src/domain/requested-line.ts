// What a shop request and a quote check alike about a product the caller
// names: whether it exists, which colors it lists and what the operator will
// have to sort out (warnings, never rejections). One copy, so a product named
// in a quote and in the shop request that follows is judged the same way.
import type { FieldProblem, Product } from '@msa/contracts';
import type { ProductIndex } from './product-index.js';

/** The part of a requested product or quote line these checks read. */
export interface RequestedLine {
  colors?: string[] | undefined;
  decoration: 'dtf' | 'stick';
}

export interface CheckedLine {
  /** The requested colors, in the catalog's spelling where the product lists them. */
  colors: string[];
  /** Sentences that begin with the field they concern (`products.0.colors: …`). */
  warnings: string[];
}

export function unknownProduct(field: string, reference: string): FieldProblem {
  return {
    field: `${field}.product`,
    message: `unknown product '${reference}'; use a handle or title listed by GET /v1/products`,
  };
}

/**
 * Unknown products in a body that failed its schema (`list` names the array:
 * `products` of a shop request, `lines` of a quote), so a 422 names every
 * problem at once instead of the product ones only after the rest is fixed.
 */
export function unknownProductsInRawBody(raw: unknown, products: ProductIndex, list: 'products' | 'lines' = 'products'): FieldProblem[] {
  const entries = raw && typeof raw === 'object' ? (raw as Record<string, unknown>)[list] : undefined;
  if (!Array.isArray(entries)) return [];
  return entries.flatMap((entry: unknown, i) => {
    const reference = entry && typeof entry === 'object' ? (entry as { product?: unknown }).product : undefined;
    if (typeof reference !== 'string' || reference.trim() === '' || products.find(reference)) return [];
    return [unknownProduct(`${list}.${i}`, reference)];
  });
}

function sameText(a: string, b: string): boolean {
  return a.normalize('NFC').trim().toLowerCase() === b.normalize('NFC').trim().toLowerCase();
}

/**
 * Where each product's listed colors were already given in a warning of this
 * request or quote (product handle → field), so a later line names that
 * field instead of repeating the list. One per request or quote.
 */
export type ListedColorsGiven = Map<string, string>;

/**
 * Checks one requested line (`field` is its dotted path) against the product
 * it resolved to. The unlisted colors of a line are one warning that names
 * each of them once and the product's list once per request (`given`), so
 * what is stored grows with what the caller sent, never with the catalog.
 */
export function checkRequestedLine(field: string, product: Product, line: RequestedLine, given: ListedColorsGiven = new Map()): CheckedLine {
  const warnings: string[] = [];
  if (product.available === false) {
    warnings.push(`${field}.product: '${product.title}' is currently not available; the operator will suggest an alternative.`);
  }

  const listed = product.colors ?? [];
  const unlisted: string[] = [];
  const colors = (line.colors ?? []).map((color) => {
    const match = listed.find((c) => sameText(c, color));
    if (match) return match;
    if (!unlisted.some((u) => sameText(u, color))) unlisted.push(color);
    return color;
  });
  if (listed.length > 0 && unlisted.length > 0) warnings.push(unlistedColorsWarning(field, product, listed, unlisted, given));

  if (line.decoration === 'stick') {
    warnings.push(`${field}.decoration: embroidery (stick) is paused; the operator will suggest print (dtf) instead.`);
  }
  return { colors, warnings };
}

function unlistedColorsWarning(field: string, product: Product, listed: string[], unlisted: string[], given: ListedColorsGiven): string {
  const names = unlisted.map((c) => `'${c}'`).join(', ');
  const verb = unlisted.length === 1 ? 'is' : 'are';
  const earlier = given.get(product.handle);
  if (earlier === undefined) given.set(product.handle, `${field}.colors`);
  const list = earlier === undefined ? `listed: ${listed.join(', ')}` : `listed: as in ${earlier}`;
  const suggestion = unlisted.length === 1 ? 'the closest listed color' : 'the closest listed colors';
  return `${field}.colors: ${names} ${verb} not listed for '${product.title}' (${list}); the operator will suggest ${suggestion}.`;
}

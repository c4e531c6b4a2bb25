import type { Product } from '@msa/contracts';

/** Looks products up the way a caller names them: by handle, else by exact title ignoring case. */
export interface ProductIndex {
  readonly size: number;
  find(reference: string): Product | undefined;
}

function normalize(text: string): string {
  return text.normalize('NFC').trim().replace(/\s+/g, ' ').toLowerCase();
}

export function createProductIndex(products: readonly Product[]): ProductIndex {
  const byHandle = new Map<string, Product>();
  const byTitle = new Map<string, Product>();
  for (const product of products) {
    byHandle.set(product.handle, product);
    // The first product with a title wins, so a lookup stays stable when two share one.
    const title = normalize(product.title);
    if (!byTitle.has(title)) byTitle.set(title, product);
  }
  return {
    size: products.length,
    find(reference) {
      const trimmed = reference.trim();
      return byHandle.get(trimmed) ?? byHandle.get(trimmed.toLowerCase()) ?? byTitle.get(normalize(trimmed));
    },
  };
}

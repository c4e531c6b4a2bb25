// The products list as JSON, from each product's JSON serialized once. A
// product's wire view is one object per loaded catalog and link base
// (catalog-index.ts), so its text can be kept beside it; a page of 250 is
// then a join of kept strings instead of a walk over 250 objects, which was
// as slow as the search itself. The bytes are JSON.stringify's (a test
// compares them).
import type { Product, ProductList } from '@msa/contracts';

const serialized = new WeakMap<Product, string>();

function productJson(product: Product): string {
  let json = serialized.get(product);
  if (json === undefined) {
    json = JSON.stringify(product);
    serialized.set(product, json);
  }
  return json;
}

/** `JSON.stringify(list)` for a list built in ProductList's field order, with every field set. */
export function productListJson(list: Required<ProductList>): string {
  const products = list.products.map(productJson).join(',');
  return `{"generated_at":${JSON.stringify(list.generated_at)},"total":${list.total},"limit":${list.limit},"offset":${list.offset},"products":[${products}]}`;
}

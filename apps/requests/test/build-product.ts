// A catalog product for the domain's unit tests: the organic T-shirt, with
// whatever a test needs to differ.
import type { Product } from '@msa/contracts';

export function buildProduct(overrides: Partial<Product> = {}): Product {
  return {
    handle: 'bio-t-shirt-unisex',
    title: 'Bio T-Shirt Unisex',
    url: 'https://shop.example/products/bio-t-shirt-unisex',
    currency: 'EUR',
    available: true,
    printed_price_from: 19.9,
    quantity_prices_dtf: null,
    colors: ['Schwarz', 'Weiß', 'Navy'],
    ...overrides,
  };
}

import type { Product, QuantityTier } from '@msa/contracts';

/** The product's print volume tiers, lowest `ab` first, whatever order the catalog lists them in. */
export function volumeTiersOf(product: Product): QuantityTier[] {
  return [...(product.quantity_prices_dtf?.tiers ?? [])].sort((a, b) => a.ab - b.ab);
}

/**
 * The tier a quantity reaches: the one with the highest `ab` not above it.
 * Below the first tier's `ab` (a catalog whose tiers start above 1), the
 * first tier; undefined for a product without tiers.
 */
export function volumeTierFor(product: Product, quantity: number): QuantityTier | undefined {
  const tiers = volumeTiersOf(product);
  return tiers.filter((tier) => tier.ab <= quantity).at(-1) ?? tiers[0];
}

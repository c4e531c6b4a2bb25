// The arithmetic of a quote, in integer cents so no total drifts by a cent
// through binary fractions. No express, no Redis, no catalog calls.
//
// Each shop type has a basis, the price its customers actually pay: b2b pays
// net (the volume tier's `netto`, VAT added on the invoice), b2c pays gross
// (`printed_price_from`, members pay individually). A line's basis total is
// its unit price times the quantity, exactly. The VAT is computed once, on
// the basis total, rounded half up to the cent: b2b 19 % of the net total,
// b2c the VAT contained in the gross total (× 19/119). The other side of each
// line is its basis total plus or minus its share of that VAT, shared out by
// the largest-remainder method, so the lines add up to the totals on both
// sides and total_net + vat = total_gross holds exactly.
//
// For b2c this VAT can differ by one cent from 19 % of total_net: about one
// gross total in six cannot be written as a net amount plus its rounded 19 %.
// The gross total members pay wins there; it is the price that was promised.
import { VAT_RATE, type Product, type ShopType } from '@msa/contracts';
import { volumeTierFor, volumeTiersOf } from './volume-tiers.js';

const VAT_PERCENT = Math.round(VAT_RATE * 100);

export const toCents = (euros: number): number => Math.round(euros * 100);
export const toEuros = (cents: number): number => cents / 100;

/** `n / d` rounded half up, exact for non-negative safe integers. */
export function divideRounded(n: number, d: number): number {
  const remainder = n % d;
  const quotient = (n - remainder) / d;
  return 2 * remainder >= d ? quotient + 1 : quotient;
}

/** The VAT in cents on a basis amount: on a net amount, or contained in a gross one. */
function vatOn(basisCents: number, shopType: ShopType): number {
  return divideRounded(basisCents * VAT_PERCENT, vatDivisor(shopType));
}

function vatDivisor(shopType: ShopType): number {
  return shopType === 'b2b' ? 100 : 100 + VAT_PERCENT;
}

export interface UnitPrice {
  /** The `ab` of the volume tier applied, null when none applies. */
  tierFrom: number | null;
  netCents: number;
  grossCents: number;
  /** What the caller should know about how the price was found. */
  note?: 'below_first_tier' | 'no_tiers';
}

/**
 * The price of one piece for a shop type and quantity. b2c: the gross
 * `printed_price_from` whatever the quantity, net without its VAT. b2b: the
 * tier with the highest `ab` not above the quantity, its `netto` and
 * `brutto` as the catalog lists them. Undefined when the catalog gives no
 * price at all.
 */
export function unitPriceOf(product: Product, shopType: ShopType, quantity: number): UnitPrice | undefined {
  const tiers = volumeTiersOf(product);
  if (shopType === 'b2b') {
    const tier = volumeTierFor(product, quantity);
    if (tier) {
      return {
        tierFrom: tier.ab,
        netCents: toCents(tier.netto),
        grossCents: toCents(tier.brutto),
        ...(quantity < tier.ab ? { note: 'below_first_tier' as const } : {}),
      };
    }
  }
  const gross = product.printed_price_from ?? tiers[0]?.brutto;
  if (gross === undefined || gross === null) return undefined;
  const grossCents = toCents(gross);
  return {
    tierFrom: null,
    netCents: grossCents - vatOn(grossCents, 'b2c'),
    grossCents,
    ...(shopType === 'b2b' ? { note: 'no_tiers' as const } : {}),
  };
}

export interface PricedLine {
  totalNetCents: number;
  totalGrossCents: number;
}

export interface PricedTotals {
  lines: PricedLine[];
  totalNetCents: number;
  vatCents: number;
  totalGrossCents: number;
}

/** Totals of lines of unit price × quantity, as the comment at the top of this file describes. */
export function priceLines(shopType: ShopType, lines: readonly { unit: UnitPrice; quantity: number }[]): PricedTotals {
  const divisor = vatDivisor(shopType);
  const basis = lines.map(({ unit, quantity }) => (shopType === 'b2b' ? unit.netCents : unit.grossCents) * quantity);
  const basisTotal = basis.reduce((sum, cents) => sum + cents, 0);
  const vatCents = vatOn(basisTotal, shopType);

  // Largest remainder: every line gets its share rounded down, then the cents
  // still missing go to the lines with the largest remainders, earlier lines first.
  const remainders = basis.map((cents, i) => ({ i, remainder: (cents * VAT_PERCENT) % divisor }));
  const shares = basis.map((cents, i) => (cents * VAT_PERCENT - remainders[i]!.remainder) / divisor);
  let missing = vatCents - shares.reduce((sum, cents) => sum + cents, 0);
  for (const { i } of [...remainders].sort((a, b) => b.remainder - a.remainder || a.i - b.i)) {
    if (missing <= 0) break;
    shares[i]! += 1;
    missing -= 1;
  }

  const priced = basis.map((cents, i) =>
    shopType === 'b2b'
      ? { totalNetCents: cents, totalGrossCents: cents + shares[i]! }
      : { totalNetCents: cents - shares[i]!, totalGrossCents: cents },
  );
  return shopType === 'b2b'
    ? { lines: priced, totalNetCents: basisTotal, vatCents, totalGrossCents: basisTotal + vatCents }
    : { lines: priced, totalNetCents: basisTotal - vatCents, vatCents, totalGrossCents: basisTotal };
}

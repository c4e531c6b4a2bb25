// The one spelling of an e-mail address that comparisons use: surrounding
// space dropped and lower case, since no provider we meet delivers by case.
// What an address reaches for quotas (`+tag`, Gmail's dots) is service-kit's
// `mailboxKey`, built on this. Mail still goes to the address as typed.

/** `  Erika@Example.ORG ` → `erika@example.org`. */
export function normalizeEmail(address: string): string {
  return address.trim().toLowerCase();
}

/** Whether two spellings name the same address, ignoring case and surrounding space. */
export function sameEmail(a: string, b: string): boolean {
  return normalizeEmail(a) === normalizeEmail(b);
}

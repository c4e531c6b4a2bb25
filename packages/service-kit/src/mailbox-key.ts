// @module `mailboxKey(address)`: the mailbox an address reaches, as quotas count people (contracts' `normalizeEmail`, then `+tag` and Gmail's dots dropped); `mailboxDomain(address)`
/*
 * The mailbox an e-mail address reaches, as quotas count people. Mail
 * providers deliver `erika+shop@…` to `erika@…`, and Gmail ignores dots in
 * the local part, so counting each spelling apart would let one person
 * multiply every per-address quota. Case and space go first, as contracts'
 * `normalizeEmail` drops them for every comparison.
 */
import { normalizeEmail } from '@msa/contracts';

/** Domains whose mailboxes ignore dots in the local part (and their aliases). */
const DOTLESS_DOMAINS: Readonly<Record<string, string>> = {
  'gmail.com': 'gmail.com',
  'googlemail.com': 'gmail.com',
};

/** `erika+x@Example.org` → `erika@example.org`; `e.r.ika@googlemail.com` → `erika@gmail.com`. */
export function mailboxKey(address: string): string {
  const text = normalizeEmail(address);
  const at = text.lastIndexOf('@');
  if (at <= 0) return text;
  let local = text.slice(0, at);
  let domain = text.slice(at + 1).replace(/\.+$/, '');
  const plus = local.indexOf('+');
  if (plus > 0) local = local.slice(0, plus);
  const dotless = DOTLESS_DOMAINS[domain];
  if (dotless) {
    domain = dotless;
    local = local.replaceAll('.', '');
  }
  return `${local}@${domain}`;
}

/** The domain that receives the address's mail, lower case: what a per-domain quota counts. */
export function mailboxDomain(address: string): string {
  return mailboxKey(address).split('@').pop() ?? '';
}

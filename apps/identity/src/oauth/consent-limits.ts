// The consent page's counts of people and codes, beside LIMITS' hourly ones:
// what one client address and one mailbox may cost per UTC day. The
// environment sets them (CONSENT_*); these are the defaults.
import { LIMITS } from '@msa/contracts';

export interface ConsentLimits {
  /** CONSENT_PRINCIPALS_PER_ADDRESS_PER_DAY: distinct mailboxes one client address asks codes for, and its sandbox approvals without an e-mail. */
  principalsPerAddressPerDay: number;
  /** CONSENT_CODES_PER_ADDRESS_PER_DAY: code e-mails to one mailbox. */
  codesPerAddressPerDay: number;
  /** CONSENT_WRONG_CODES_PER_ADDRESS_PER_DAY: wrong codes for one mailbox before confirming it is locked. */
  wrongCodesPerAddressPerDay: number;
  /** Code e-mails to one mailbox an hour; not configurable, a test raises it to reach the daily caps within an hour. */
  codesPerAddressPerHour: number;
}

export const CONSENT_DEFAULTS: Readonly<ConsentLimits> = {
  principalsPerAddressPerDay: 10,
  codesPerAddressPerDay: 10,
  wrongCodesPerAddressPerDay: 15,
  codesPerAddressPerHour: LIMITS.consentMailsPerAddressPerHour,
};

// What the consent page's use cases share: the store, the code mailer and
// the counts of people and codes.
import type { DailyQuota, WindowLimiter } from '@msa/service-kit/limits';
import type { ConsentMailer } from '../queue/consent-mailer.js';
import type { OAuthStore } from '../store/oauth-store.js';

export interface ConsentCounts {
  /** Code e-mails per mailbox an hour and per UTC day. */
  mailsPerAddress: WindowLimiter;
  mailsPerAddressPerDay: DailyQuota;
  /** Code e-mails a client address asks for an hour. */
  mailsPerIp: WindowLimiter;
  /** Distinct people (mailboxes) a client address asks codes for per UTC day. */
  peoplePerIp: DailyQuota;
  /** Wrong codes per mailbox and UTC day before confirming it is locked. */
  wrongCodesPerAddressPerDay: number;
}

export interface ConsentDeps {
  store: OAuthStore;
  mailer: ConsentMailer;
  counts: ConsentCounts;
}

/** Why no code is sent or taken; the page says which. */
export type ConsentRefusal = 'codes' | 'codes_today' | 'locked' | 'people';

export interface TooManyResult {
  kind: 'too_many';
  reason: ConsentRefusal;
  retryAfterSeconds: number;
}

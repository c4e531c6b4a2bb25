// A person's rights of access and erasure (GDPR Art. 15 and 17): what
// `GET /v1/me/data` answers, and what identity asks of the requests service
// to find and erase the shop requests tied to an address or a principal.
import { DateTime, Mode, Scope } from './common.js';
import { ConfirmedSubmitter, RequestTrace } from './intake.js';
import { ShopRequestResult } from './shop-requests.js';
import { z } from './zod.js';

/** A shop request as stored: its body as accepted, its result, and what the store keeps beside them. */
export const StoredShopRequestExport = z
  .object({
    id: z.string(),
    sandbox: z.boolean(),
    owner_id: z.string(),
    /** Where the live request is on its way to the operator: `none` (sandbox), `pending`, `queued`. */
    intake: z.string(),
    body: z.record(z.string(), z.unknown()),
    result: ShopRequestResult,
    trace: RequestTrace,
    submitter: ConfirmedSubmitter.optional(),
    /** When its personal data was erased; the fields kept are not personal. */
    erased_at: DateTime.optional(),
  })
  .openapi('StoredShopRequest');
export type StoredShopRequestExport = z.infer<typeof StoredShopRequestExport>;

export const GrantExport = z
  .object({
    grant_id: z.string(),
    client_id: z.string(),
    client_name: z.string(),
    scopes: z.array(Scope),
    resource: z.string(),
    mode: Mode,
    sandbox: z.boolean(),
    created_at: DateTime,
    status: z.enum(['active', 'revoked']),
  })
  .openapi('GrantExport');
export type GrantExport = z.infer<typeof GrantExport>;

/** A credentials record without the hashes of its secrets. */
export const CredentialsExport = z
  .object({
    client_id: z.string(),
    name: z.string(),
    email: z.string(),
    scopes: z.array(Scope),
    mode: Mode,
    tier: z.string(),
    origin: z.enum(['api_key', 'registration']),
    created_at: DateTime,
  })
  .openapi('CredentialsExport');
export type CredentialsExport = z.infer<typeof CredentialsExport>;

/** What the person approved on the consent page, and when. */
export const ConsentRecordExport = z
  .object({
    grant_id: z.string(),
    email: z.string(),
    client_name: z.string(),
    scopes: z.array(Scope),
    mode: Mode,
    approved_at: DateTime,
  })
  .openapi('ConsentRecordExport');
export type ConsentRecordExport = z.infer<typeof ConsentRecordExport>;

export const PersonalDataExport = z
  .object({
    subject: z.object({
      kind: z.enum(['person', 'api_key']).openapi({ description: '`person`: an address confirmed on the consent page; `api_key`: credentials.' }),
      principal_id: z.string().optional(),
      email: z.string().optional(),
    }),
    exported_at: DateTime,
    shop_requests: z.array(StoredShopRequestExport),
    oauth_grants: z.array(GrantExport),
    credentials: z.array(CredentialsExport),
    consent_records: z.array(ConsentRecordExport),
  })
  .openapi('PersonalDataExport');
export type PersonalDataExport = z.infer<typeof PersonalDataExport>;

/**
 * Internal: whose shop requests to find or erase. A request matches when its
 * contact address or its confirmed submitter is `email` (as mailboxKey
 * counts mailboxes) or its owner is one of `owner_ids`. `scan` also reads
 * every stored request, for those stored before the index existed.
 */
export const PersonalShopRequestQuery = z.object({
  email: z.string().min(3).max(254).optional(),
  owner_ids: z.array(z.string().min(1).max(200)).max(10).default([]),
  scan: z.boolean().default(false),
});
export type PersonalShopRequestQuery = z.infer<typeof PersonalShopRequestQuery>;
export type PersonalShopRequestQueryInput = z.input<typeof PersonalShopRequestQuery>;

export const PersonalShopRequests = z.object({ shop_requests: z.array(StoredShopRequestExport) });
export type PersonalShopRequests = z.infer<typeof PersonalShopRequests>;

export const PersonalShopRequestErasure = z.object({
  /** Requests whose personal data was erased by this call (already erased ones are not counted again). */
  erased: z.array(z.string()),
  /** Live requests taken off the intake queue before delivery. */
  intake_jobs_dropped: z.number().int(),
  /** Entries of the internal request list whose personal fields were replaced. */
  list_entries_erased: z.number().int(),
});
export type PersonalShopRequestErasure = z.infer<typeof PersonalShopRequestErasure>;

// The rights of access and erasure, for the API's `/v1/me/data` and the
// operator CLI alike (one code path). Identity orchestrates: it holds the
// grants, credentials and consent records and the person index that finds
// them; the requests service finds and erases the shop requests and the
// intake worker's copies of them (internal HTTP, contracts' typed client);
// the consent codes still on the mail queue are dropped here, where they
// are made.
import type { CallContext, ConsentRecordExport, CredentialsExport, GrantExport, PersonalDataExport, PersonalShopRequestErasure, RequestsClient } from '@msa/contracts';
import { mailboxKey } from '@msa/service-kit';
import type { CredentialEraser, CredentialRecord, CredentialStore } from '../store/credential-store.js';
import type { Grant, OAuthStore } from '../oauth/store/oauth-store.js';
import { personId } from '../oauth/rules/person.js';
import type { DropConsentMails } from './consent-mail-drop.js';
import type { PrivacyStore } from './store/privacy-store.js';

/** Whose data: a person by the address they confirmed, or one set of credentials. */
export type DataSubject = { kind: 'person'; email: string } | { kind: 'api_key'; clientId: string };

export interface PersonalDataDeps {
  oauth: Pick<OAuthStore, 'findGrant' | 'revokeGrant' | 'eraseGrant' | 'allGrantIds'>;
  credentials: Pick<CredentialStore, 'findByClientId'> & CredentialEraser;
  privacy: PrivacyStore;
  requests: Pick<RequestsClient, 'findPersonalShopRequests' | 'erasePersonalShopRequests'>;
  dropConsentMails: DropConsentMails;
  now?: () => Date;
}

export interface LookupOptions {
  /** Also read every stored grant and credential (SCAN): for data stored before the person index existed. */
  scan?: boolean;
  /** The context of the calls to the requests service (request id, trace). */
  ctx: CallContext;
}

export interface ErasureSummary {
  grants_revoked: number;
  credentials_deleted: number;
  consent_mails_dropped: number;
  shop_requests: PersonalShopRequestErasure;
  erased_at: string;
}

const sameMailbox = (a: string, b: string) => mailboxKey(a) === mailboxKey(b);

function grantExport(grant: Grant, active: boolean): GrantExport {
  return {
    grant_id: grant.grant_id,
    client_id: grant.client_id,
    client_name: grant.client_name,
    scopes: grant.scopes,
    resource: grant.resource,
    mode: grant.approval.mode,
    sandbox: grant.sandbox,
    created_at: grant.created_at,
    status: active ? 'active' : 'revoked',
  };
}

function consentRecord(grant: Grant): ConsentRecordExport {
  return {
    grant_id: grant.grant_id,
    email: grant.approval.email ?? '',
    client_name: grant.client_name,
    scopes: grant.scopes,
    mode: grant.approval.mode,
    approved_at: grant.created_at,
  };
}

function credentialsExport(record: CredentialRecord): CredentialsExport {
  const { api_key_hash: _key, client_secret_hash: _secret, token_endpoint_auth_method: _method, ...rest } = record;
  return rest;
}

/** The grants and credentials tied to a person's mailbox, by the index and, when asked, by a scan. */
async function personRecords(deps: PersonalDataDeps, email: string, scan: boolean) {
  const { grantIds, clientIds } = await deps.privacy.membersOf(email);
  const grantSet = new Set(grantIds);
  const clientSet = new Set(clientIds);
  if (scan) {
    for (const id of await deps.oauth.allGrantIds()) grantSet.add(id);
    for (const id of await deps.credentials.allClientIds()) clientSet.add(id);
  }
  const grants: { grant: Grant; active: boolean }[] = [];
  for (const id of [...grantSet].sort()) {
    const found = await deps.oauth.findGrant(id);
    if (found?.grant.approval.email && sameMailbox(found.grant.approval.email, email)) grants.push(found);
  }
  const credentials: CredentialRecord[] = [];
  for (const id of [...clientSet].sort()) {
    const record = await deps.credentials.findByClientId(id);
    if (record && sameMailbox(record.email, email)) credentials.push(record);
  }
  return { grants, credentials };
}

/** The principals a person's requests are owned by: one per mode. */
const personOwners = (email: string) => [personId(email, 'live'), personId(email, 'sandbox')];

export async function exportPersonalData(deps: PersonalDataDeps, subject: DataSubject, opts: LookupOptions): Promise<PersonalDataExport> {
  const exportedAt = (deps.now?.() ?? new Date()).toISOString();
  if (subject.kind === 'api_key') {
    const record = await deps.credentials.findByClientId(subject.clientId);
    const { shop_requests } = await deps.requests.findPersonalShopRequests(opts.ctx, { owner_ids: [subject.clientId], scan: opts.scan ?? false });
    return {
      subject: { kind: 'api_key', principal_id: subject.clientId },
      exported_at: exportedAt,
      shop_requests,
      oauth_grants: [],
      credentials: record ? [credentialsExport(record)] : [],
      consent_records: [],
    };
  }
  const { grants, credentials } = await personRecords(deps, subject.email, opts.scan ?? false);
  const { shop_requests } = await deps.requests.findPersonalShopRequests(opts.ctx, {
    email: subject.email,
    owner_ids: personOwners(subject.email),
    scan: opts.scan ?? false,
  });
  return {
    subject: { kind: 'person', email: subject.email, principal_id: personId(subject.email, 'live') },
    exported_at: exportedAt,
    shop_requests,
    oauth_grants: grants.map(({ grant, active }) => grantExport(grant, active)),
    credentials: credentials.map(credentialsExport),
    consent_records: grants.map(({ grant }) => consentRecord(grant)),
  };
}

/**
 * Erases a subject's personal data; a repeat finds nothing left to do and
 * changes nothing but the erasure record's time. Grants go first, so the
 * person's tokens stop working before anything else is done; the erasure is
 * recorded last, once everything else succeeded.
 */
export async function erasePersonalData(deps: PersonalDataDeps, subject: DataSubject, opts: LookupOptions): Promise<ErasureSummary> {
  const now = deps.now?.() ?? new Date();
  if (subject.kind === 'api_key') {
    const shopRequests = await deps.requests.erasePersonalShopRequests(opts.ctx, { owner_ids: [subject.clientId], scan: opts.scan ?? false });
    const record = await deps.credentials.findByClientId(subject.clientId);
    if (record) await deps.credentials.remove(record);
    await deps.privacy.recordErasure({ clientId: subject.clientId }, now);
    return { grants_revoked: 0, credentials_deleted: record ? 1 : 0, consent_mails_dropped: 0, shop_requests: shopRequests, erased_at: now.toISOString() };
  }
  const { email } = subject;
  const { grants, credentials } = await personRecords(deps, email, opts.scan ?? false);
  for (const { grant } of grants) {
    await deps.oauth.revokeGrant(grant.grant_id);
    await deps.oauth.eraseGrant(grant.grant_id);
  }
  const consentMailsDropped = await deps.dropConsentMails(email);
  // A credentials record has one contact address: when it is this one, the record goes.
  for (const record of credentials) await deps.credentials.remove(record);
  const shopRequests = await deps.requests.erasePersonalShopRequests(opts.ctx, { email, owner_ids: personOwners(email), scan: opts.scan ?? false });
  await deps.privacy.forget(email);
  await deps.privacy.recordErasure({ mailbox: email }, now);
  return {
    grants_revoked: grants.length,
    credentials_deleted: credentials.length,
    consent_mails_dropped: consentMailsDropped,
    shop_requests: shopRequests,
    erased_at: now.toISOString(),
  };
}

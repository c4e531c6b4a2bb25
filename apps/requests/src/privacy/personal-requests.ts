// The rights of access and erasure for shop requests: find every stored
// request whose contact or confirmed submitter is an address, or whose owner
// is one of the given principals, and export or erase them. The index finds
// requests stored since it exists; `scan` reads every stored request too,
// for those stored before (the operator CLI's `--scan`).
import type { PersonalShopRequestErasure, PersonalShopRequestQuery, StoredShopRequestExport } from '@msa/contracts';
import { mailboxKey } from '@msa/service-kit';
import type { ShopRequestEraser, ShopRequestStore, StoredShopRequest } from '../store/shop-request-store.js';
import { erasedRequest } from './erased-request.js';
import type { IntakeCopies } from './store/intake-copies.js';
import type { IndexSubject, RequestIndex } from './store/request-index.js';

export interface PersonalRequestDeps {
  store: Pick<ShopRequestStore, 'get'> & ShopRequestEraser;
  index: RequestIndex;
  intakeCopies: IntakeCopies;
  /** Removes a live request's job from the intake queue unless a worker holds it; true when removed. */
  dropIntakeJob: (id: string) => Promise<boolean>;
  /** Every stored request id (a SCAN over every master); only for `scan`. */
  allRequestIds: () => Promise<string[]>;
  now?: () => Date;
}

interface Found {
  id: string;
  stored: StoredShopRequest;
}

/** Whether a stored request is tied to the query's address or owners. */
export function matches(stored: StoredShopRequest, query: PersonalShopRequestQuery): boolean {
  if (query.owner_ids.includes(stored.ownerId)) return true;
  if (!query.email) return false;
  const mailbox = mailboxKey(query.email);
  return mailboxKey(stored.body.organization.email) === mailbox || (stored.submitter !== undefined && mailboxKey(stored.submitter.email) === mailbox);
}

function subjectsOf(query: PersonalShopRequestQuery): IndexSubject[] {
  return [...(query.email ? [{ mailbox: query.email }] : []), ...query.owner_ids.map((owner) => ({ owner }))];
}

async function findAll(deps: PersonalRequestDeps, query: PersonalShopRequestQuery): Promise<Found[]> {
  const ids = new Set<string>();
  for (const subject of subjectsOf(query)) for (const id of await deps.index.idsOf(subject)) ids.add(id);
  if (query.scan) for (const id of await deps.allRequestIds()) ids.add(id);
  const found: Found[] = [];
  for (const id of [...ids].sort()) {
    // An id whose request expired, or a record that no longer matches (an erased contact), is skipped.
    const stored = await deps.store.get(id);
    if (stored && matches(stored, query)) found.push({ id, stored });
  }
  return found;
}

export function exportOf({ id, stored }: Found): StoredShopRequestExport {
  return {
    id,
    sandbox: stored.result.sandbox,
    owner_id: stored.ownerId,
    intake: stored.intake,
    body: stored.body as Record<string, unknown>,
    result: stored.result,
    trace: stored.trace,
    ...(stored.submitter ? { submitter: stored.submitter } : {}),
    ...(stored.erasedAt ? { erased_at: stored.erasedAt } : {}),
  };
}

export async function findPersonalRequests(deps: PersonalRequestDeps, query: PersonalShopRequestQuery): Promise<StoredShopRequestExport[]> {
  return (await findAll(deps, query)).map(exportOf);
}

/**
 * Erases every matching request. A live request still waiting on the intake
 * queue is taken off it: once its contact is erased nobody could answer it,
 * and the job's payload is a full copy of the personal data. A job a worker
 * already holds finishes; its list entry is then erased by a repeat, which
 * is harmless at any time.
 */
export async function erasePersonalRequests(deps: PersonalRequestDeps, query: PersonalShopRequestQuery): Promise<PersonalShopRequestErasure> {
  const now = deps.now?.() ?? new Date();
  const outcome: PersonalShopRequestErasure = { erased: [], intake_jobs_dropped: 0, list_entries_erased: 0 };
  for (const { id, stored } of await findAll(deps, query)) {
    if (!stored.result.sandbox && (await deps.dropIntakeJob(id))) outcome.intake_jobs_dropped += 1;
    if (!stored.erasedAt && (await deps.store.erasePersonal(id, erasedRequest(stored), now))) outcome.erased.push(id);
    if (!stored.result.sandbox && (await deps.intakeCopies.erase(id, now))) outcome.list_entries_erased += 1;
  }
  // The mailbox's index key is a pseudonym of the address: it goes too. Owner keys stay with the ids the operator keeps.
  if (query.email) await deps.index.forget({ mailbox: query.email });
  return outcome;
}

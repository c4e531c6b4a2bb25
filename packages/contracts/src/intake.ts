// The `intake` queue between the requests service and the intake worker: the
// payload of one job and what travels with it. The payload carries the whole
// accepted request, and the quote it named, so the worker needs no other store.
import { Quote } from './quotes.js';
import { ShopRequestBody, ShopRequestId, ShopRequestResult } from './shop-requests.js';
import { z } from './zod.js';

/** Where an accepted request came from, so the worker's log lines join the request's. */
export const RequestTrace = z.object({ request_id: z.string().optional(), traceparent: z.string().optional() });
export type RequestTrace = z.infer<typeof RequestTrace>;

/**
 * Who submitted a request when a person confirmed their address on the
 * consent page (authorization code grant): the operator e-mail and the
 * internal list say so, with the client they authorized.
 */
export const ConfirmedSubmitter = z.object({
  email: z.string(),
  client_id: z.string(),
  client_name: z.string(),
});
export type ConfirmedSubmitter = z.infer<typeof ConfirmedSubmitter>;

/** The version of the intake payload this release writes; payloads of release 1.0.0 carry none (version 1). */
export const INTAKE_JOB_VERSION = 2;

/**
 * The payload of a job on the `intake` queue. It carries the whole accepted
 * request so the worker needs no other store; it never carries credentials.
 *
 * A worker takes payloads of every version and drops the fields it does not
 * know (so does the worker of 1.0.0, which drops `version` itself); a
 * producer writes only what the previous release's worker accepts, so
 * workers and requests services of two neighbouring releases run side by
 * side during a rolling upgrade.
 */
export const IntakeJob = z.object({
  /** Absent on version 1. */
  version: z.number().int().positive().optional(),
  request_id: ShopRequestId,
  body: ShopRequestBody,
  result: ShopRequestResult,
  owner_id: z.string(),
  request_trace: RequestTrace.default({}),
  /** Present when the submitter's address was confirmed; older payloads have none. */
  submitter: ConfirmedSubmitter.optional(),
  /**
   * The quote the request named, as stored when it was made. `body` then
   * leaves out `quote_id`: the previous worker's body schema is strict and
   * would refuse it, while it drops this unknown field and delivers the rest.
   */
  quote: Quote.optional(),
});
export type IntakeJob = z.infer<typeof IntakeJob>;
export type IntakeJobInput = z.input<typeof IntakeJob>;

export const INTAKE_QUEUE = 'intake';
/**
 * A failed intake job is removed this long after it failed (BullMQ
 * `removeOnFail`, and the worker's sweep): its data is the whole request,
 * which the requests service keeps stored with its intake state anyway.
 */
export const INTAKE_FAILED_JOB_MAX_AGE_SECONDS = 30 * 24 * 3600;
/** Redis stream of the internal request list (the key gets the deployment prefix). */
export const INTAKE_LIST_STREAM = 'intake:list';

/**
 * The intake worker's keys that hold copies of a request's personal data:
 * the list, the marker that names a request's entry (tagged with the list's
 * whole name, so both sit in one Cluster slot) and the logos downloaded
 * until the operator e-mail is sent. Written by the worker, erased by the
 * requests service; both build the names here.
 */
export function intakeCopyKeys(prefix: string) {
  const list = `${prefix}${INTAKE_LIST_STREAM}`;
  return {
    list,
    entry: (id: string) => `{${list}}:entry:${id}`,
    logos: (id: string) => `${prefix}intake:logos:{${id}}`,
  };
}

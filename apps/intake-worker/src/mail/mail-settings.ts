import type { IntakeJob } from '@msa/contracts';

export interface MailSettings {
  /** MAIL_FROM, as configured ("Name <address>" or an address). */
  from: string;
  operatorEmail: string;
  /** Right-hand side of every Message-ID: the sender's domain. */
  domain: string;
  /** PUBLIC_BASE_URL: every e-mail to a person links its privacy notice there. */
  publicBaseUrl: string;
}

/** The shop request's two e-mails, and the consent page's one-time code from the `mail` queue. */
export type MailKind = 'operator' | 'confirmation' | 'consent-code';

/**
 * Derived from the shop request id (or the mail job) alone, so a second send
 * of the same e-mail (the at-least-once window, see README) carries the same
 * Message-ID and mail clients and the operator can recognise it as a duplicate.
 */
export function messageIdFor(requestId: string, kind: MailKind, settings: Pick<MailSettings, 'domain'>): string {
  return `<${requestId}.${kind}@${settings.domain}>`;
}

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;
const TRACEPARENT = /^00-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$/;

/**
 * `X-Request-Id` and `traceparent` of the API call that created the request.
 * They come from the job, so they are only copied when they have their
 * well-known shape; nothing else could smuggle a line break into a header.
 */
export function traceHeaders(job: Pick<IntakeJob, 'request_trace'>): Record<string, string> {
  const headers: Record<string, string> = {};
  const { request_id: requestId, traceparent } = job.request_trace;
  if (requestId && REQUEST_ID.test(requestId)) headers['X-Request-Id'] = requestId;
  if (traceparent && TRACEPARENT.test(traceparent)) headers.traceparent = traceparent;
  return headers;
}

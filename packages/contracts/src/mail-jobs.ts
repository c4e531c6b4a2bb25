// The `mail` queue: e-mails that are not shop requests, sent by the intake
// worker through the same SMTP transport. Today one kind: the consent page's
// one-time code. The address and the code travel sealed (service-kit
// `createSealedText` with MAIL_JOB_SEAL_PURPOSE), so Redis never holds them in clear.
import { RequestTrace } from './intake.js';
import { z } from './zod.js';

export const MAIL_QUEUE = 'mail';
export const MAIL_JOB_SEAL_PURPOSE = 'msa mail job v1';

export const ConsentLanguage = z.enum(['de', 'en']);
export type ConsentLanguage = z.infer<typeof ConsentLanguage>;

/** What the seal holds. */
export const ConsentCodeSecret = z.object({ to: z.string(), code: z.string().regex(/^\d{6}$/) });
export type ConsentCodeSecret = z.infer<typeof ConsentCodeSecret>;

/**
 * Where an approval sends the authorization code, as a person can check it:
 * the redirect URI's host (`host`, https), an app on the person's own device
 * (`device`, a loopback redirect) or a native app's URI scheme (`scheme`).
 */
export const ApprovalTarget = z.object({ kind: z.enum(['host', 'device', 'scheme']), value: z.string() });
export type ApprovalTarget = z.infer<typeof ApprovalTarget>;

export const ConsentCodeMailJob = z.looseObject({
  kind: z.literal('consent_code'),
  version: z.literal(1),
  sealed: z.string(),
  lang: ConsentLanguage,
  /** Who asks for access: the client's name, and the host of its metadata document where it has one. */
  client_name: z.string(),
  client_host: z.string().optional(),
  /** Where the approval goes; absent from jobs of earlier producers. */
  approval_target: ApprovalTarget.optional(),
  /** The client's name was declared by whoever registered it or hosts its document, and nobody checked it. */
  client_name_self_declared: z.boolean().optional(),
  expires_in_minutes: z.number().int().positive(),
  request_trace: RequestTrace.default({}),
});
export type ConsentCodeMailJob = z.infer<typeof ConsentCodeMailJob>;

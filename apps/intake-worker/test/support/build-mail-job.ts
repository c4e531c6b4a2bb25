import { ConsentCodeMailJob, MAIL_JOB_SEAL_PURPOSE, type ApprovalTarget, type ConsentLanguage } from '@msa/contracts';
import { createSealedText } from '@msa/service-kit';
import { TEST_INTERNAL_SECRET } from '@msa/test-kit';

export interface MailJobOverrides {
  to?: string;
  code?: string;
  lang?: ConsentLanguage;
  clientName?: string;
  clientHost?: string | null;
  /** Absent unless given, as in jobs of producers before it existed. */
  approvalTarget?: ApprovalTarget;
  selfDeclared?: boolean;
  expiresInMinutes?: number;
  /** Seals with another secret than the worker's. */
  secret?: string;
  /** Replaces what is sealed (e.g. something that is not an address and a code). */
  sealedText?: string;
  trace?: ConsentCodeMailJob['request_trace'];
}

/** A consent code job as identity adds it to the `mail` queue. */
export function buildConsentCodeJob(overrides: MailJobOverrides = {}): ConsentCodeMailJob {
  const secret = {
    to: overrides.to ?? 'erika.mustermann@example.org',
    code: overrides.code ?? '482915',
  };
  const sealed = createSealedText(overrides.secret ?? TEST_INTERNAL_SECRET, MAIL_JOB_SEAL_PURPOSE).seal(overrides.sealedText ?? JSON.stringify(secret));
  return ConsentCodeMailJob.parse({
    kind: 'consent_code',
    version: 1,
    sealed,
    lang: overrides.lang ?? 'de',
    client_name: overrides.clientName ?? 'Claude',
    ...(overrides.clientHost === null ? {} : { client_host: overrides.clientHost ?? 'claude.ai' }),
    ...(overrides.approvalTarget ? { approval_target: overrides.approvalTarget } : {}),
    ...(overrides.selfDeclared === undefined ? {} : { client_name_self_declared: overrides.selfDeclared }),
    expires_in_minutes: overrides.expiresInMinutes ?? 10,
    request_trace: overrides.trace ?? { request_id: 'api-consent-1' },
  });
}

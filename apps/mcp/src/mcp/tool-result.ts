// Tool results in one shape: the data as `structuredContent` plus its JSON as
// text (for clients that only read `content`), and failures as `isError`
// results carrying the API's own error envelope, so a model reads the same
// `code`, `hint` and `fields` it would get from the REST API.
import { ErrorEnvelope, ServiceCallError, type ErrorCode, type FieldProblem } from '@msa/contracts';
import type { CallToolResult } from '@modelcontextprotocol/server';
import { buildEnvelope } from '@msa/service-kit';

export function toolSuccess(data: Record<string, unknown>): CallToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(data) }], structuredContent: data };
}

export function toolFailure(envelope: ErrorEnvelope): CallToolResult {
  const e = envelope.error;
  const lines = [`Error ${e.status} ${e.code}: ${e.message}`];
  if (e.fields?.length) lines.push(...e.fields.map((f) => `- ${f.field}: ${f.message}`));
  if (e.hint) lines.push(`Hint: ${e.hint}`);
  if (e.docs) lines.push(`Docs: ${e.docs}`);
  return {
    isError: true,
    content: [{ type: 'text', text: `${lines.join('\n')}\n\n${JSON.stringify(envelope)}` }],
    structuredContent: envelope as unknown as Record<string, unknown>,
  };
}

export interface EnvelopeFactory {
  (code: ErrorCode, message: string, extra?: { hint?: string; fields?: FieldProblem[]; status?: number }): ErrorEnvelope;
}

export function createEnvelopeFactory(publicBaseUrl: string): EnvelopeFactory {
  return (code, message, extra = {}) => buildEnvelope({ publicBaseUrl }, code, message, extra);
}

/**
 * The envelope for anything a service call threw: the service's own envelope
 * when it sent one, else 502/504 for a service that is down or slow.
 */
export function envelopeOfFailure(err: unknown, envelope: EnvelopeFactory, service: string): ErrorEnvelope {
  if (err instanceof ServiceCallError) {
    if (err.envelope) return err.envelope;
    return envelope('upstream_unavailable', `The ${service} service answered ${err.status}.`);
  }
  const name = err instanceof Error ? err.name : '';
  if (name === 'TimeoutError' || name === 'AbortError') {
    return envelope('upstream_timeout', `The ${service} service did not answer in time.`);
  }
  return envelope('upstream_unavailable', `The ${service} service is unavailable.`);
}

/** Parses a response body as the error envelope, if it is one. */
export function asEnvelope(body: unknown): ErrorEnvelope | null {
  const parsed = ErrorEnvelope.safeParse(body);
  return parsed.success ? parsed.data : null;
}

import { BOUNDS, SERVICE_PREFIX } from '@msa/contracts';
import type { IncomingHttpHeaders } from 'node:http';

export type Credential = { kind: 'api_key'; value: string } | { kind: 'token'; value: string } | { kind: 'malformed'; reason: string };

const KEY_PREFIXES = [`${SERVICE_PREFIX}_test_`, `${SERVICE_PREFIX}_live_`];

/**
 * The credential a request carries: `Authorization: Bearer …` (an API key or
 * an access token) or `X-API-Key: …`. Null when it carries none.
 */
export function extractCredential(headers: IncomingHttpHeaders): Credential | null {
  const auth = headers.authorization;
  const apiKeyHeader = headers['x-api-key'];
  let value: string | undefined;
  if (typeof auth === 'string' && auth.length > 0) {
    const m = /^Bearer[ ]+(\S+)\s*$/i.exec(auth);
    if (!m) return { kind: 'malformed', reason: 'The Authorization header must be "Bearer <API_KEY or access token>".' };
    value = m[1]!;
  } else if (typeof apiKeyHeader === 'string' && apiKeyHeader.length > 0) {
    value = apiKeyHeader.trim();
  } else {
    return null;
  }
  // Bounded here so an oversized credential is a 401 without a lookup;
  // identity refuses API keys past the same bound.
  if (value.length > BOUNDS.accessTokenMaxLength) {
    return { kind: 'malformed', reason: `The credential is longer than ${BOUNDS.accessTokenMaxLength} characters.` };
  }
  if (KEY_PREFIXES.some((p) => value.startsWith(p))) {
    if (value.length > BOUNDS.apiKeyMaxLength) {
      return { kind: 'malformed', reason: `The API key is longer than ${BOUNDS.apiKeyMaxLength} characters; no key of this API is.` };
    }
    return { kind: 'api_key', value };
  }
  if (/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/.test(value)) return { kind: 'token', value };
  return { kind: 'malformed', reason: `The credential is neither an API key (${KEY_PREFIXES.join('…, ')}…) nor an access token.` };
}

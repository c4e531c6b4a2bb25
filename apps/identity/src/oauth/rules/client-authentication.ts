// Client authentication at the token endpoint (RFC 6749 §2.3.1): HTTP Basic
// or `client_id` + `client_secret` in the body, never both at once.
import { BOUNDS } from '@msa/contracts';

export interface ClientCredentials {
  clientId: string;
  clientSecret: string;
  method: 'client_secret_basic' | 'client_secret_post';
}

export type ClientAuthResult =
  | { kind: 'ok'; credentials: ClientCredentials }
  /** Nothing usable was sent: 401 invalid_client. */
  | { kind: 'missing' }
  /** A Basic header that cannot be read: 401 invalid_client. */
  | { kind: 'malformed_basic' }
  /** Two methods at once, or a body id that contradicts the Basic one: 400 invalid_request. */
  | { kind: 'conflict'; message: string };

/** The form-urlencoding RFC 6749 applies to both parts before Basic encodes them. */
function formDecode(part: string): string | null {
  try {
    return decodeURIComponent(part.replace(/\+/g, ' '));
  } catch {
    return null;
  }
}

/**
 * Reads `Authorization: Basic …`. Returns null when the header is not Basic
 * (a Bearer credential meant for someone else), 'malformed' when it is Basic
 * but unreadable.
 */
export function parseBasicCredentials(header: string | undefined): { clientId: string; clientSecret: string } | 'malformed' | null {
  if (!header) return null;
  const match = /^Basic(?:[ \t]+(.*))?$/i.exec(header.trim());
  if (!match) return null;
  const encoded = (match[1] ?? '').trim();
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(encoded)) return 'malformed';
  const decoded = Buffer.from(encoded, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return 'malformed';
  const clientId = formDecode(decoded.slice(0, colon));
  const clientSecret = formDecode(decoded.slice(colon + 1));
  if (clientId === null || clientSecret === null || clientId === '') return 'malformed';
  if (clientId.length > BOUNDS.clientIdMaxLength || clientSecret.length > BOUNDS.clientSecretMaxLength) return 'malformed';
  return { clientId, clientSecret };
}

export function authenticateClientRequest(
  authorization: string | undefined,
  body: { client_id?: string | undefined; client_secret?: string | undefined },
): ClientAuthResult {
  const basic = parseBasicCredentials(authorization);
  const bodyId = body.client_id || undefined;
  const bodySecret = body.client_secret || undefined;

  if (basic !== null) {
    if (bodySecret !== undefined) {
      return { kind: 'conflict', message: 'Send the client credentials either with HTTP Basic or in the body, not both.' };
    }
    if (basic === 'malformed') return { kind: 'malformed_basic' };
    // Some clients repeat client_id in the body next to Basic; harmless while it agrees.
    if (bodyId !== undefined && bodyId !== basic.clientId) {
      return { kind: 'conflict', message: 'client_id in the body differs from the one in the Authorization header.' };
    }
    return { kind: 'ok', credentials: { ...basic, method: 'client_secret_basic' } };
  }
  if (bodyId !== undefined && bodySecret !== undefined) {
    return { kind: 'ok', credentials: { clientId: bodyId, clientSecret: bodySecret, method: 'client_secret_post' } };
  }
  return { kind: 'missing' };
}

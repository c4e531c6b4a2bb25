// The records of the authorization code grant as Redis keeps them, parsed
// on every read so an old or damaged record is refused, not trusted.
import { Mode, Scope } from '@msa/contracts';
import { z } from 'zod';

export const PublicClient = z.object({
  client_id: z.string(),
  client_name: z.string(),
  redirect_uris: z.array(z.string()),
  scopes: z.array(Scope),
  created_at: z.string(),
});
export type PublicClient = z.infer<typeof PublicClient>;

/** What the authorization request asked for, kept from /oauth/authorize to the code. */
export const AuthorizationRequest = z.object({
  client_id: z.string(),
  client_name: z.string(),
  /** The metadata document's host; absent for a registered client. */
  client_host: z.string().optional(),
  /** Whether the operator verified the client; otherwise its name is self-declared. */
  client_verified: z.boolean().default(false),
  redirect_uri: z.string(),
  /** Whether the authorization request named it; then the token request must name it too (OAuth 2.1 §4.1.3). */
  redirect_uri_sent: z.boolean().default(true),
  state: z.string().optional(),
  code_challenge: z.string(),
  scopes: z.array(Scope),
  resource: z.string(),
  /** Started on the sandbox path: only sandbox can be chosen, and the issuer is the sandbox's. */
  sandbox: z.boolean(),
});
export type AuthorizationRequest = z.infer<typeof AuthorizationRequest>;

export const Interaction = z.object({
  request: AuthorizationRequest,
  /** Digest of the browser cookie that started it: only that browser may answer. */
  browser: z.string(),
  csrf: z.string(),
  step: z.enum(['email', 'code']),
  email: z.string().optional(),
  code_digest: z.string().optional(),
  code_expires_at: z.number().optional(),
});
export type Interaction = z.infer<typeof Interaction>;

/**
 * Who approved, in which mode: the principal of every token of the grant.
 * A person is their confirmed address; the sandbox without an e-mail has no
 * address and a principal of its own per approval.
 */
export const Approval = z.object({
  email: z.string().optional(),
  mode: Mode,
  /** The sandbox without an e-mail only: its principal id. */
  principal: z.string().optional(),
});
export type Approval = z.infer<typeof Approval>;

export const AuthorizationCode = z.object({
  request: AuthorizationRequest,
  approval: Approval,
  grant_id: z.string(),
});
export type AuthorizationCode = z.infer<typeof AuthorizationCode>;

export const Grant = z.object({
  grant_id: z.string(),
  client_id: z.string(),
  client_name: z.string(),
  scopes: z.array(Scope),
  resource: z.string(),
  sandbox: z.boolean(),
  approval: Approval,
  created_at: z.string(),
});
export type Grant = z.infer<typeof Grant>;

export type RefreshOutcome =
  | { kind: 'rotated' }
  /** The token rotated last, presented again within the grace: its successor, sealed as it was stored. */
  | { kind: 'grace'; sealedSuccessor: string }
  | { kind: 'reused' }
  | { kind: 'unknown' }
  | { kind: 'revoked' };

/** Used refresh digests a grant remembers: a token older than the last this many rotations is refused as unknown. */
export const USED_REFRESH_KEPT = 100;

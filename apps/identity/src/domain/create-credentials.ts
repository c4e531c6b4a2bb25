import type { Mode, Scope } from '@msa/contracts';
import type { CredentialRecord, CredentialStore } from '../store/credential-store.js';
import { FREE_TIER, generateCredentials, hashSecret, type NewCredentials } from './credentials.js';
import { canonicalScopes } from '../oauth/rules/scopes.js';

export interface CredentialInput {
  name: string;
  email: string;
  scopes: Scope[];
  mode: Mode;
  origin: CredentialRecord['origin'];
  tokenEndpointAuthMethod?: CredentialRecord['token_endpoint_auth_method'];
}

export interface CreatedCredentials extends NewCredentials {
  record: CredentialRecord;
}

/**
 * Makes and stores one principal: an API key and a client id/secret with the
 * same scopes and mode. The clear values are returned once and never stored.
 */
export async function createCredentials(
  store: CredentialStore,
  input: CredentialInput,
  now = new Date(),
  /** Runs with the credentials before they are stored (to bind an Idempotency-Key to them). */
  beforeStore?: (created: CreatedCredentials) => Promise<void>,
): Promise<CreatedCredentials> {
  const secrets = generateCredentials(input.mode);
  const record: CredentialRecord = {
    client_id: secrets.clientId,
    api_key_hash: hashSecret(secrets.apiKey),
    client_secret_hash: hashSecret(secrets.clientSecret),
    name: input.name,
    email: input.email,
    scopes: canonicalScopes(input.scopes),
    mode: input.mode,
    tier: FREE_TIER,
    // Whole seconds, so created_at and client_id_issued_at tell the same time.
    created_at: new Date(Math.floor(now.getTime() / 1000) * 1000).toISOString(),
    origin: input.origin,
    token_endpoint_auth_method: input.tokenEndpointAuthMethod ?? 'client_secret_basic',
  };
  const created = { ...secrets, record };
  await beforeStore?.(created);
  await store.create(record);
  return created;
}

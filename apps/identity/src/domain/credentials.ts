// The shape of every credential this service hands out, and how it is kept:
// random base62 bodies behind fixed prefixes, stored only as SHA-256 hashes.
import { createHash, randomInt, timingSafeEqual } from 'node:crypto';
import { BOUNDS, SERVICE_PREFIX, type Mode } from '@msa/contracts';

/** The only tier so far: every credential and every grant of the authorization code flow has it. */
export const FREE_TIER = 'free';

export const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

export const API_KEY_PREFIX: Record<Mode, string> = {
  sandbox: `${SERVICE_PREFIX}_test_`,
  live: `${SERVICE_PREFIX}_live_`,
};
export const CLIENT_ID_PREFIX = `${SERVICE_PREFIX}_client_`;
export const CLIENT_SECRET_PREFIX = `${SERVICE_PREFIX}_secret_`;

/** Random characters after each prefix: 40 base62 characters carry about 238 bits. */
export const API_KEY_RANDOM_LENGTH = 40;
export const CLIENT_SECRET_RANDOM_LENGTH = 40;
/** A client id is public; 24 characters (about 143 bits) keep collisions out of reach. */
export const CLIENT_ID_RANDOM_LENGTH = 24;

const API_KEY_PATTERN = new RegExp(`^${SERVICE_PREFIX}_(test|live)_[0-9A-Za-z]{32,128}$`);
const CLIENT_ID_PATTERN = new RegExp(`^${CLIENT_ID_PREFIX}[0-9A-Za-z]{16,64}$`);

/** `length` characters drawn uniformly from base62 (randomInt rejects biased draws itself). */
export function randomBase62(length: number): string {
  let out = '';
  for (let i = 0; i < length; i++) out += BASE62[randomInt(BASE62.length)];
  return out;
}

export interface NewCredentials {
  apiKey: string;
  clientId: string;
  clientSecret: string;
}

export function generateCredentials(mode: Mode): NewCredentials {
  return {
    apiKey: API_KEY_PREFIX[mode] + randomBase62(API_KEY_RANDOM_LENGTH),
    clientId: CLIENT_ID_PREFIX + randomBase62(CLIENT_ID_RANDOM_LENGTH),
    clientSecret: CLIENT_SECRET_PREFIX + randomBase62(CLIENT_SECRET_RANDOM_LENGTH),
  };
}

// The length checks come from contracts, where the gateway reads them too.
export function looksLikeApiKey(value: string): boolean {
  return value.length <= BOUNDS.apiKeyMaxLength && API_KEY_PATTERN.test(value);
}

export function looksLikeClientId(value: string): boolean {
  return value.length <= BOUNDS.clientIdMaxLength && CLIENT_ID_PATTERN.test(value);
}

/** Hex SHA-256: what the store keeps instead of a key or secret. */
export function hashSecret(value: string): string {
  return createHash('sha256').update(value, 'utf8').digest('hex');
}

/** Constant-time comparison of a presented secret with a stored hash. */
export function matchesHash(value: string, storedHashHex: string): boolean {
  const presented = createHash('sha256').update(value, 'utf8').digest();
  const stored = Buffer.from(storedHashHex, 'hex');
  return stored.length === presented.length && timingSafeEqual(presented, stored);
}

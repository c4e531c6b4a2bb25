// Refresh tokens of the authorization code grant: `msa_rt_<grant>_<random>`,
// so a token names its grant and the store is asked about that grant only.
import { createSealedText } from '@msa/service-kit';
import { randomBase62 } from '../../domain/credentials.js';

const REFRESH_PREFIX = 'msa_rt_';
const REFRESH_TOKEN = /^msa_rt_(g[0-9A-Za-z]{24})_([0-9A-Za-z]{40})$/;
const SUCCESSOR_SEAL_PURPOSE = 'refresh-token-successor';

/** The grant a refresh token names, or null for anything that is not one of ours. */
export function grantIdOf(refreshToken: string): string | null {
  return REFRESH_TOKEN.exec(refreshToken)?.[1] ?? null;
}

export function newRefreshToken(grantId: string): string {
  return `${REFRESH_PREFIX}${grantId}_${randomBase62(40)}`;
}

/**
 * The successor of a refresh token, sealed under a key derived from that
 * token: Redis holds only the token's digest, so a copy of Redis opens
 * nothing, and only a caller presenting the token gets its successor.
 */
export function successorSeal(presentedToken: string) {
  return createSealedText(presentedToken, SUCCESSOR_SEAL_PURPOSE);
}

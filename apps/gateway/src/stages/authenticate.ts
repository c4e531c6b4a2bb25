// Authenticate: who is calling. An API key is resolved through identity
// (cached in process), an access token verified locally against identity's
// JWKS for the resource addressed. Wrong credentials are refused here
// (CredentialRefused, which the failed-auth budget counts); what this stage
// cannot settle (identity away, no credentials where they are needed) is left
// for admit to answer once the request is counted.
import type { CallContext } from '@msa/contracts';
import { AppError, appError, serviceUnavailableError, type Logger } from '@msa/service-kit';
import { throttledLog } from '@msa/service-kit/redis';
import { CredentialRefused } from '../auth/challenges.js';
import { isIdentityUnavailable } from '../auth/identity-unavailable.js';
import { extractCredential, type Credential } from '../auth/credentials.js';
import type { KeyResolver } from '../auth/key-resolver.js';
import { InvalidTokenError, type TokenVerifier } from '../auth/token-verifier.js';
import type { Handoff, Stage, View } from './exchange.js';

/** What authenticate reads of the exchange and writes for the stages after it. */
export const AUTHENTICATE_HANDOFF = { reads: ['route', 'resource', 'mayAskIdentity'], writes: ['principal', 'refusal'] } as const satisfies Handoff;

export interface AuthenticateOptions {
  resolveKey: KeyResolver;
  verifyToken: TokenVerifier;
  logger: Logger;
}

export function createAuthenticateStage({ resolveKey, verifyToken, logger }: AuthenticateOptions): Stage<View<typeof AUTHENTICATE_HANDOFF>> {
  const identityWarning = throttledLog(logger, 'warn', 'credentials cannot be checked: identity unavailable');
  function identityUnavailable(err: unknown): AppError {
    identityWarning({ err });
    return serviceUnavailableError('Credentials cannot be checked right now; retry after the seconds in Retry-After.');
  }

  /** Any other failure answers as the error handler answers an unhandled one: logged, 500. */
  function unexpected(x: View<typeof AUTHENTICATE_HANDOFF>, err: unknown): AppError {
    if (err instanceof AppError) return err;
    x.req.log.error({ err }, 'unhandled error');
    return appError('internal_error', 'Something went wrong on our side.');
  }

  /** Asks identity (or the key cache past the failed-auth budget) about a credential the gateway does not know yet. */
  async function lookUp(x: View<typeof AUTHENTICATE_HANDOFF>, credential: Exclude<Credential, { kind: 'malformed' }>): Promise<void> {
    const ask = await x.mayAskIdentity();
    try {
      if (credential.kind === 'api_key') {
        const ctx: CallContext = { principal: null, sandbox: false, ip: x.ip, request_id: x.req.id, traceparent: x.req.traceparent };
        x.principal = await resolveKey(credential.value, ctx, { cachedOnly: !ask });
      } else {
        x.principal = await verifyToken(credential.value, { audiences: x.resource.audiences, knownKeysOnly: !ask });
      }
    } catch (err) {
      if (err instanceof InvalidTokenError) throw new CredentialRefused(x.resource, err.message);
      // A token fails otherwise only when the JWKS cannot be fetched.
      x.refusal = credential.kind === 'token' || isIdentityUnavailable(err) ? identityUnavailable(err) : unexpected(x, err);
      return;
    }
    if (!x.principal) throw new CredentialRefused(x.resource, 'The API key is unknown.');
  }

  return (x, next) => {
    if (x.route.auth === 'none') return next(x);
    const credential = extractCredential(x.req.headers);
    if (!credential) return next(x);
    if (credential.kind === 'malformed') throw new CredentialRefused(x.resource, credential.reason);
    // A key resolved within the TTL cannot fail: no budget read, no lookup.
    const known = credential.kind === 'api_key' ? resolveKey.fresh?.(credential.value) : null;
    if (known) {
      x.principal = known;
      return next(x);
    }
    return lookUp(x, credential).then(() => next(x));
  };
}

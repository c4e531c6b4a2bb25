// The answers that tell a client how to authenticate: RFC 6750 Bearer
// challenges naming the RFC 9728 metadata of the resource it addressed.
import { AppError, appError } from '@msa/service-kit';
import type { ProtectedResource } from '../domain/protected-resource.js';

function challenge(resource: ProtectedResource, invalidToken: boolean): string {
  return `Bearer resource_metadata="${resource.metadataUrl}"${invalidToken ? ', error="invalid_token"' : ''}`;
}

/** 401 for a request without credentials where they are needed. */
export function credentialsRequired(resource: ProtectedResource, message: string): AppError {
  return appError('unauthorized', message, { headers: { 'WWW-Authenticate': challenge(resource, false) } });
}

/**
 * 401 for credentials that are wrong: unknown, malformed, expired, forged,
 * for another resource. The failed-auth budget counts these.
 */
export class CredentialRefused extends AppError {
  constructor(resource: ProtectedResource, message: string) {
    super(401, 'unauthorized', message, { headers: { 'WWW-Authenticate': challenge(resource, true) } });
    this.name = 'CredentialRefused';
  }
}

/** 403 naming the scope an operation needs (RFC 6750 §3.1 step-up). */
export function insufficientScope(resource: ProtectedResource, scope: string, operation: string): AppError {
  return appError('insufficient_scope', `These credentials lack the scope "${scope}" that ${operation} needs.`, {
    headers: {
      'WWW-Authenticate': `Bearer error="insufficient_scope", scope="${scope}", resource_metadata="${resource.metadataUrl}"`,
    },
  });
}

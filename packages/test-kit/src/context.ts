import { generateKeyPairSync, randomBytes, randomUUID } from 'node:crypto';
import { SCOPES, INTERNAL_AUTH_HEADER, type CallContext, type Principal, type ServiceName } from '@msa/contracts';
import { createInternalSigner, createLogger, type Logger } from '@msa/service-kit';

/** A fixed internal-auth secret for tests (never used outside them). */
export const TEST_INTERNAL_SECRET = 'test-internal-auth-secret-0123456789abcdef';
export const TEST_BASE_URL = 'http://api.test.local';

export const testSigner = createInternalSigner(TEST_INTERNAL_SECRET);

export function buildPrincipal(overrides: Partial<Principal> = {}): Principal {
  return {
    id: `msa_client_${randomBytes(8).toString('hex')}`,
    name: 'test-agent',
    scopes: [...SCOPES],
    mode: 'sandbox',
    tier: 'free',
    via: 'api_key',
    ...overrides,
  };
}

export function buildContext(overrides: Partial<CallContext> = {}): CallContext {
  return { principal: null, sandbox: false, ip: '127.0.0.1', request_id: randomUUID(), ...overrides };
}

/** The `X-Internal-Auth` header for a call to `audience` with the given context. */
export function internalHeaders(audience: ServiceName, ctx: Partial<CallContext> = {}): Record<string, string> {
  return { [INTERNAL_AUTH_HEADER]: testSigner(audience, buildContext(ctx)) };
}

/** A silent logger unless LOG_LEVEL asks for lines. */
export function testLogger(service = 'test'): Logger {
  return createLogger({ service, level: process.env.TEST_LOG_LEVEL ?? 'silent' });
}

/** A fresh ES256 key pair in PEM, for token signing in tests. */
export function testEcKeyPair(): { privateKeyPem: string; publicKeyPem: string } {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  return {
    privateKeyPem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    publicKeyPem: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
  };
}

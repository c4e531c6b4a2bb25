import { createRequire } from 'node:module';
import type { CallContext } from '@msa/contracts';
import { describe, expect, it } from 'vitest';
import { createInternalSigner, verifyInternalToken } from './internal-auth.js';

const SECRET = 'a-secret-of-at-least-thirty-two-characters';
const ctx: CallContext = { principal: null, sandbox: false, ip: '203.0.113.9', request_id: 'req-1' };

const jsonwebtokenLoaded = () => Object.keys(createRequire(import.meta.url).cache).some((file) => file.includes('/jsonwebtoken/'));

describe('verifyInternalToken', () => {
  it('loads jsonwebtoken only for the first token in a form the signer never writes', () => {
    const ours = createInternalSigner(SECRET)('shops', ctx);

    expect(verifyInternalToken(SECRET, 'shops', ours)).toEqual(ctx);
    expect(jsonwebtokenLoaded()).toBe(false);

    const foreignHeader = Buffer.from(JSON.stringify({ typ: 'JWT', alg: 'HS256' })).toString('base64url');
    expect(verifyInternalToken(SECRET, 'shops', `${foreignHeader}.e30.c2ln`)).toBeNull();
    expect(jsonwebtokenLoaded()).toBe(true);
  });
});

// The ES256 key pair that signs access tokens, and the JWKS the gateway
// verifies them with. Earlier public keys stay published during a rotation
// so tokens signed before it keep verifying until they expire.
import { createPrivateKey, createPublicKey, type JsonWebKey, type KeyObject } from 'node:crypto';

export interface PublishedKey {
  kid: string;
  publicKeyPem: string;
}

export interface Jwk extends JsonWebKey {
  kty: string;
  crv: string;
  x: string;
  y: string;
  kid: string;
  alg: 'ES256';
  use: 'sig';
}

export interface TokenKeys {
  kid: string;
  privateKey: KeyObject;
  jwks: { keys: Jwk[] };
}

function toJwk(publicKey: KeyObject, kid: string): Jwk {
  const jwk: JsonWebKey = publicKey.export({ format: 'jwk' });
  if (jwk.kty !== 'EC' || !jwk.crv || !jwk.x || !jwk.y) throw new Error(`key ${kid} is not an EC public key`);
  return { kty: jwk.kty, crv: jwk.crv, x: jwk.x, y: jwk.y, kid, alg: 'ES256', use: 'sig' };
}

export function createTokenKeys(signing: { privateKeyPem: string; kid: string }, previous: PublishedKey[] = []): TokenKeys {
  const privateKey = createPrivateKey(signing.privateKeyPem);
  const keys = [toJwk(createPublicKey(privateKey), signing.kid)];
  for (const p of previous) {
    // A kid listed twice would let a verifier pick the wrong key.
    if (keys.some((k) => k.kid === p.kid)) throw new Error(`kid ${p.kid} is published twice`);
    keys.push(toJwk(createPublicKey(p.publicKeyPem), p.kid));
  }
  return { kid: signing.kid, privateKey, jwks: { keys } };
}

/** The private scalar of the signing key: input keying material for other secrets derived with HKDF. */
export function signingKeyMaterial(keys: TokenKeys): Buffer {
  const d = keys.privateKey.export({ format: 'jwk' }).d;
  if (!d) throw new Error('signing key has no private component');
  return Buffer.from(d, 'base64url');
}

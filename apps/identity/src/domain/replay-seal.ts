// An idempotent replay of POST /v1/keys must return the same secrets, yet
// Redis may hold no secret in clear. The stored response is therefore sealed
// with AES-256-GCM under a key derived from a server secret and the caller's
// Idempotency-Key: a copy of Redis alone opens nothing, and one caller's key
// opens no one else's record.
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import { appError, type IdempotencyBodyCodec } from '@msa/service-kit';

const VERSION = 'v1';
const INFO = 'msa identity idempotent replay';

export function createReplaySeal(serverSecret: Buffer): IdempotencyBodyCodec {
  const keyFor = (idempotencyKey: string) =>
    Buffer.from(hkdfSync('sha256', serverSecret, Buffer.from(idempotencyKey, 'utf8'), INFO, 32));

  return {
    seal(body, idempotencyKey) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', keyFor(idempotencyKey), iv);
      const data = Buffer.concat([cipher.update(body, 'utf8'), cipher.final()]);
      return [VERSION, iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), data.toString('base64url')].join('.');
    },
    open(stored, idempotencyKey) {
      const [version, iv, tag, data] = stored.split('.');
      try {
        if (version !== VERSION || !iv || !tag || data === undefined) throw new Error('unknown format');
        const decipher = createDecipheriv('aes-256-gcm', keyFor(idempotencyKey), Buffer.from(iv, 'base64url'));
        decipher.setAuthTag(Buffer.from(tag, 'base64url'));
        return Buffer.concat([decipher.update(Buffer.from(data, 'base64url')), decipher.final()]).toString('utf8');
      } catch {
        // Only after a rotation of the signing key, within the 24 hours of a record.
        throw appError('idempotency_key_reused', 'The first response to this Idempotency-Key can no longer be replayed.', {
          hint: 'Send the request with a new Idempotency-Key.',
        });
      }
    },
  };
}

// @module `createSealedText(secret, purpose)`: AES-256-GCM seal and open for text that passes through Redis unreadable there, under a key derived from INTERNAL_AUTH_SECRET and a purpose
// Text that must pass through Redis without being readable there (a one-time
// code and its address on the mail queue): AES-256-GCM under a key derived
// from the shared INTERNAL_AUTH_SECRET and a purpose, so a copy of Redis
// alone opens nothing and a seal made for one purpose opens for no other.
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

const VERSION = 's1';

export interface SealedText {
  seal(text: string): string;
  /** The text, or null when the seal is not one of this secret and purpose. */
  open(sealed: string): string | null;
}

export function createSealedText(secret: string, purpose: string): SealedText {
  const key = Buffer.from(hkdfSync('sha256', Buffer.from(secret, 'utf8'), Buffer.alloc(0), purpose, 32));
  return {
    seal(text) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      const data = Buffer.concat([cipher.update(text, 'utf8'), cipher.final()]);
      return [VERSION, iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), data.toString('base64url')].join('.');
    },
    open(sealed) {
      const [version, iv, tag, data] = sealed.split('.');
      if (version !== VERSION || !iv || !tag || data === undefined) return null;
      try {
        const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
        decipher.setAuthTag(Buffer.from(tag, 'base64url'));
        return Buffer.concat([decipher.update(Buffer.from(data, 'base64url')), decipher.final()]).toString('utf8');
      } catch {
        return null;
      }
    },
  };
}

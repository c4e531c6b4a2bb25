// The consent page is bound to the browser that opened it: a cookie set at
// /oauth/authorize whose digest the interaction keeps.
import { LIMITS } from '@msa/contracts';
import { parse as parseCookies } from 'cookie';
import type { Request, Response } from 'express';
import { randomBase62 } from '../../domain/credentials.js';

const COOKIE_SECURE = '__Host-msa_consent';
const COOKIE_PLAIN = 'msa_consent';
const BINDING = /^[0-9A-Za-z]{32,64}$/;

export function createBrowserBinding(publicBaseUrl: string) {
  // `__Host-` needs Secure, which a browser only keeps over https.
  const secure = publicBaseUrl.startsWith('https:');
  const name = secure ? COOKIE_SECURE : COOKIE_PLAIN;

  function read(req: Request): string | undefined {
    return parseCookies(req.headers.cookie ?? '')[name];
  }

  return {
    /** The binding this browser sent, if any. */
    read,
    /** The browser's binding, set when it has none yet. */
    ensure(req: Request, res: Response): string {
      const existing = read(req);
      if (existing && BINDING.test(existing)) return existing;
      const value = randomBase62(40);
      res.cookie(name, value, { httpOnly: true, secure, sameSite: 'lax', path: '/', maxAge: LIMITS.consentInteractionSeconds * 1000 });
      return value;
    },
  };
}
export type BrowserBinding = ReturnType<typeof createBrowserBinding>;

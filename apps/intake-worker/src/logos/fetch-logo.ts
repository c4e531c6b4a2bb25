/*
 * Downloads one caller-supplied logo through the guarded public fetch (DNS
 * checked and pinned, redirects re-checked, byte cap, one time limit), then
 * names its type by its bytes.
 */
import { fetchPublic, PublicFetchError, type AddressPolicy } from '@msa/service-kit/public-fetch';
import { LOGO_CONTENT_TYPES, sniffLogoType, type LogoType } from './magic-bytes.js';

export const MAX_REDIRECTS = 3;

export interface LogoFetchOptions {
  policy: AddressPolicy;
  maxBytes: number;
  timeoutMs: number;
  /** Resolves a host name to every address (tests of the checks pass their own). */
  resolve?: (host: string) => Promise<{ address: string; family: number }[]>;
}

export type LogoFetchResult =
  | { ok: true; data: Buffer; type: LogoType; contentType: string; finalUrl: string }
  | { ok: false; reason: LogoRefusal; detail: string };

/** Why a logo is not attached; the operator e-mail turns it into a German note. */
export type LogoRefusal = 'invalid_url' | 'forbidden_address' | 'too_large' | 'not_an_image' | 'http_status' | 'too_many_redirects' | 'timeout' | 'network';

export async function fetchLogo(url: string, opts: LogoFetchOptions): Promise<LogoFetchResult> {
  try {
    const { body, finalUrl } = await fetchPublic(url, {
      policy: opts.policy,
      maxBytes: opts.maxBytes,
      timeoutMs: opts.timeoutMs,
      maxRedirects: MAX_REDIRECTS,
      headers: { accept: 'image/png, image/jpeg, image/svg+xml', 'user-agent': 'msa-intake-worker (logo download)' },
      ...(opts.resolve ? { resolve: opts.resolve } : {}),
    });
    const type = sniffLogoType(body);
    if (!type) return { ok: false, reason: 'not_an_image', detail: 'not a PNG, JPEG or SVG file' };
    return { ok: true, data: body, type, contentType: LOGO_CONTENT_TYPES[type], finalUrl };
  } catch (err) {
    if (err instanceof PublicFetchError) return { ok: false, reason: err.reason, detail: err.message };
    return { ok: false, reason: 'network', detail: err instanceof Error ? err.message : String(err) };
  }
}

/**
 * Operations scheduled for removal. The gateway adds `Deprecation`, `Sunset`
 * (RFC 8594) and a `Link` to the notice on every response of a listed path.
 * Deprecations are announced at least 180 days before the sunset.
 */
export interface Deprecation {
  method: string;
  /** Express-style path, matched against the request path without /sandbox. */
  path: string;
  /** When it was deprecated (ISO date), for the notice; the header itself says `Deprecation: true` (spec §9). */
  deprecatedAt: string;
  /** When it stops working (ISO date); sent as the HTTP-date `Sunset`. */
  sunset: string;
  /** Where the notice explains the replacement (relative to the base URL). */
  notice: string;
}

export const DEPRECATIONS: readonly Deprecation[] = [];

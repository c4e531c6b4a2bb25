// The OAuth endpoints' paths, read from the operations table of the
// contracts, which the gateway routes and the documents link by: identity
// serves, redirects to and advertises exactly those.
import { operationOf } from '@msa/service-kit';

export const OAUTH_PATHS = {
  authorize: operationOf('authorize').path,
  /** `/oauth/consent/{interaction}`: the consent page of one authorization request. */
  consent: operationOf('consent').path,
  token: operationOf('issueAccessToken').path,
  register: operationOf('registerClient').path,
  revoke: operationOf('revokeToken').path,
  jwks: operationOf('jwks').path,
} as const;

/** Pages the discovery documents point people to. */
export const PAGE_PATHS = {
  developers: operationOf('getDeveloperPortal').path,
  privacy: operationOf('getPrivacyNotice').path,
  terms: operationOf('getTermsOfUse').path,
} as const;

/** The consent page of interaction `id`. */
export function consentPath(id: string): string {
  return OAUTH_PATHS.consent.replace('{interaction}', id);
}

/** The consent page's URL on the issuer of its environment, in `lang` when given. */
export function consentUrl(issuer: string, id: string, lang?: string): string {
  return `${issuer}${consentPath(id)}${lang ? `?lang=${lang}` : ''}`;
}

// The OAuth endpoints' paths, read from the operations table of the
// contracts, which the gateway routes and the documents link by: identity
// serves, redirects to and advertises exactly those.
import { OPERATIONS, type RouteId } from '@msa/contracts';

type OAuthRouteId = 'authorize' | 'consent' | 'issueAccessToken' | 'registerClient' | 'revokeToken';

function pathOf(id: OAuthRouteId & RouteId): string {
  const op = OPERATIONS.find((o) => o.id === id);
  if (!op) throw new Error(`The operations table has no route '${id}'.`);
  return op.path;
}

export const OAUTH_PATHS = {
  authorize: pathOf('authorize'),
  /** `/oauth/consent/{interaction}`: the consent page of one authorization request. */
  consent: pathOf('consent'),
  token: pathOf('issueAccessToken'),
  register: pathOf('registerClient'),
  revoke: pathOf('revokeToken'),
} as const;

/** An OpenAPI path as express routes it: `{name}` becomes `:name`. */
export function routePath(openApiPath: string): string {
  return openApiPath.replace(/\{([A-Za-z_]\w*)\}/g, ':$1');
}

/** The consent page of interaction `id`. */
export function consentPath(id: string): string {
  return OAUTH_PATHS.consent.replace('{interaction}', id);
}

/** The consent page's URL on the issuer of its environment, in `lang` when given. */
export function consentUrl(issuer: string, id: string, lang?: string): string {
  return `${issuer}${consentPath(id)}${lang ? `?lang=${lang}` : ''}`;
}

// Every public operation: which service answers it and what it needs. The
// gateway proxies nothing that is not listed here, so a service's /internal
// routes and /metrics can never be reached from outside.
import type { OperationId, Scope, ServiceName } from '@msa/contracts';
import { compileRoutes } from './route-matcher.js';

export type { Resolution } from './route-matcher.js';

/** `none`: credentials are not read; `open`: optional, used when given; `required`: 401 without. */
export type UpstreamName = Exclude<ServiceName, 'gateway' | 'intake-worker'>;

export type AuthMode = 'none' | 'open' | 'required';

export interface RouteDef {
  operation: OperationId | string;
  method: string;
  /** Path pattern: literal segments, `:param`, or a trailing `*`. */
  path: string;
  target: UpstreamName | 'docs';
  auth: AuthMode;
  scope?: Scope;
}

export const ROUTES: readonly RouteDef[] = [
  { operation: 'listProducts', method: 'GET', path: '/v1/products', target: 'catalog', auth: 'open', scope: 'catalog:read' },
  { operation: 'getProduct', method: 'GET', path: '/v1/products/:handle', target: 'catalog', auth: 'open', scope: 'catalog:read' },
  { operation: 'getPricing', method: 'GET', path: '/v1/pricing', target: 'catalog', auth: 'open', scope: 'catalog:read' },
  // The more specific image path first: the first matching route wins.
  { operation: 'getShopImage', method: 'GET', path: '/images/shops/*', target: 'shops', auth: 'none' },
  { operation: 'getProductImage', method: 'GET', path: '/images/*', target: 'catalog', auth: 'none' },
  { operation: 'listPublicShops', method: 'GET', path: '/v1/shops', target: 'shops', auth: 'open', scope: 'shops:read' },
  { operation: 'createShopRequest', method: 'POST', path: '/v1/shop-requests', target: 'requests', auth: 'required', scope: 'requests:write' },
  { operation: 'getShopRequest', method: 'GET', path: '/v1/shop-requests/:id', target: 'requests', auth: 'required', scope: 'requests:read' },
  { operation: 'createApiKey', method: 'POST', path: '/v1/keys', target: 'identity', auth: 'none' },
  { operation: 'getCurrentPrincipal', method: 'GET', path: '/v1/me', target: 'identity', auth: 'required' },
  { operation: 'issueAccessToken', method: 'POST', path: '/oauth/token', target: 'identity', auth: 'none' },
  { operation: 'registerClient', method: 'POST', path: '/oauth/register', target: 'identity', auth: 'none' },
  { operation: 'authorizationServerMetadata', method: 'GET', path: '/.well-known/oauth-authorization-server', target: 'identity', auth: 'none' },
  { operation: 'protectedResourceMetadata', method: 'GET', path: '/.well-known/oauth-protected-resource', target: 'identity', auth: 'none' },
  { operation: 'mcpProtectedResourceMetadata', method: 'GET', path: '/.well-known/oauth-protected-resource/mcp', target: 'identity', auth: 'none' },
  { operation: 'jwks', method: 'GET', path: '/.well-known/jwks.json', target: 'identity', auth: 'none' },
  { operation: 'mcpEndpoint', method: 'POST', path: '/mcp', target: 'mcp', auth: 'open' },
  { operation: 'mcpEndpoint', method: 'GET', path: '/mcp', target: 'mcp', auth: 'open' },
  { operation: 'mcpEndpoint', method: 'DELETE', path: '/mcp', target: 'mcp', auth: 'open' },
  { operation: 'getServiceDocument', method: 'GET', path: '/', target: 'docs', auth: 'none' },
  { operation: 'getOpenApi', method: 'GET', path: '/openapi.json', target: 'docs', auth: 'none' },
  { operation: 'getAgentInstructions', method: 'GET', path: '/llms.txt', target: 'docs', auth: 'none' },
  { operation: 'getAgentsMd', method: 'GET', path: '/agents.md', target: 'docs', auth: 'none' },
  { operation: 'getVersioningPolicy', method: 'GET', path: '/v1/versioning', target: 'docs', auth: 'none' },
  { operation: 'getOnboarding', method: 'GET', path: '/v1/onboarding', target: 'docs', auth: 'none' },
  { operation: 'getKeyOnboarding', method: 'GET', path: '/v1/keys', target: 'docs', auth: 'none' },
  { operation: 'getDeveloperPortal', method: 'GET', path: '/developers', target: 'docs', auth: 'none' },
  // Not an API operation: browsers ask for it on every portal visit, and a 404 is a console error.
  { operation: 'getFavicon', method: 'GET', path: '/favicon.ico', target: 'docs', auth: 'none' },
];

/** Finds the route for a method and a path (already without `/sandbox`). HEAD uses the GET route. */
export function createRouteResolver(routes: readonly RouteDef[] = ROUTES) {
  return compileRoutes(routes);
}

// Discovery documents: RFC 8414 authorization-server metadata and RFC 9728
// protected-resource metadata. Under the sandbox every URL (and the issuer)
// carries `/sandbox`, so a client that discovers there stays there.
import { SCOPES } from '@msa/contracts';
import { issuerFor } from './access-token.js';

export function authorizationServerMetadata(publicBaseUrl: string, sandbox: boolean) {
  const base = issuerFor(publicBaseUrl, sandbox);
  return {
    issuer: base,
    token_endpoint: `${base}/oauth/token`,
    registration_endpoint: `${base}/oauth/register`,
    jwks_uri: `${base}/.well-known/jwks.json`,
    scopes_supported: [...SCOPES],
    // Required by RFC 8414; there is no authorization endpoint, so no response type applies.
    response_types_supported: [] as string[],
    grant_types_supported: ['client_credentials'],
    token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
    service_documentation: `${base}/developers`,
  };
}

/** The protected resources this API serves: the REST API at the base URL and the MCP endpoint below it. */
export type ProtectedResource = 'api' | 'mcp';

/**
 * RFC 9728 metadata of one resource. Each resource has its own document
 * (`/.well-known/oauth-protected-resource` for the API, `…/mcp` for the MCP
 * endpoint), because a client checks that `resource` is exactly the URL it
 * derived the document's address from, and asks for a token with that
 * `resource` (RFC 8707), which becomes the token's audience.
 */
export function protectedResourceMetadata(publicBaseUrl: string, sandbox: boolean, resource: ProtectedResource = 'api') {
  const base = issuerFor(publicBaseUrl, sandbox);
  return {
    resource: resource === 'mcp' ? `${base}/mcp` : base,
    authorization_servers: [base],
    scopes_supported: [...SCOPES],
    bearer_methods_supported: ['header'],
    resource_name: resource === 'mcp' ? 'Merch-Shop Agent API (MCP)' : 'Merch-Shop Agent API',
    resource_documentation: `${base}/developers`,
  };
}

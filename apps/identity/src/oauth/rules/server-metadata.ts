// Discovery documents: RFC 8414 authorization-server metadata and RFC 9728
// protected-resource metadata. Under the sandbox every URL (and the issuer)
// carries `/sandbox`, so a client that discovers there stays there.
import { PRODUCT_NAME, SCOPES } from '@msa/contracts';
import { issuerFor } from '../tokens/access-token.js';
import { OAUTH_PATHS, PAGE_PATHS } from '../paths.js';
import { OFFLINE_ACCESS } from './scopes.js';

export function authorizationServerMetadata(publicBaseUrl: string, sandbox: boolean) {
  const base = issuerFor(publicBaseUrl, sandbox);
  return {
    issuer: base,
    authorization_endpoint: `${base}${OAUTH_PATHS.authorize}`,
    token_endpoint: `${base}${OAUTH_PATHS.token}`,
    registration_endpoint: `${base}${OAUTH_PATHS.register}`,
    revocation_endpoint: `${base}${OAUTH_PATHS.revoke}`,
    jwks_uri: `${base}${OAUTH_PATHS.jwks}`,
    // offline_access is accepted and ignored (every grant gets a refresh token); hosts look for it here.
    scopes_supported: [...SCOPES, OFFLINE_ACCESS],
    response_types_supported: ['code'],
    response_modes_supported: ['query'],
    grant_types_supported: ['authorization_code', 'refresh_token', 'client_credentials'],
    token_endpoint_auth_methods_supported: ['none', 'client_secret_basic', 'client_secret_post'],
    revocation_endpoint_auth_methods_supported: ['none'],
    code_challenge_methods_supported: ['S256'],
    // draft-ietf-oauth-client-id-metadata-document: an https URL may be the client_id.
    client_id_metadata_document_supported: true,
    authorization_response_iss_parameter_supported: true,
    ui_locales_supported: ['de', 'en'],
    service_documentation: `${base}${PAGE_PATHS.developers}`,
    // RFC 8414 §2: what a person signing in may read about how their data is used, and the terms.
    op_policy_uri: `${base}${PAGE_PATHS.privacy}`,
    op_tos_uri: `${base}${PAGE_PATHS.terms}`,
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
    resource_name: resource === 'mcp' ? `${PRODUCT_NAME} (MCP)` : PRODUCT_NAME,
    resource_documentation: `${base}${PAGE_PATHS.developers}`,
  };
}

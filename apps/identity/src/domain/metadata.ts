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

export function protectedResourceMetadata(publicBaseUrl: string, sandbox: boolean) {
  const base = issuerFor(publicBaseUrl, sandbox);
  return {
    resource: base,
    authorization_servers: [base],
    scopes_supported: [...SCOPES],
    bearer_methods_supported: ['header'],
    resource_name: 'Merch-Shop Agent API',
    resource_documentation: `${base}/developers`,
  };
}

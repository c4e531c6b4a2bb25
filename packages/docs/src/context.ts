import type { OperationDef, RouteId, SandboxForm } from '@msa/contracts';

/**
 * Who a document is rendered for: the public base URL of the deployment and
 * whether the reader arrived on the sandbox. Every link in every document is
 * derived here, so production and sandbox copies can never disagree.
 */
export interface DocContext {
  publicBaseUrl: string;
  sandbox: boolean;
}

export interface DocUrls {
  /** The production base address (no `/sandbox`). */
  root: string;
  /** Base of API calls for this reader: `<root>/sandbox` on the sandbox. */
  base: string;
  production: string;
  sandbox: string;
  mcp: string;
  openapi: string;
  llmsTxt: string;
  agentsMd: string;
  developers: string;
  versioning: string;
  onboarding: string;
  keys: string;
  me: string;
  products: string;
  pricing: string;
  shops: string;
  shopRequests: string;
  oauthToken: string;
  oauthRegister: string;
  /** RFC 8414 metadata of the issuer `base` (path-insertion form on the sandbox). */
  authorizationServerMetadata: string;
  /** RFC 9728 metadata of the resource `base`. */
  protectedResourceMetadata: string;
  /** RFC 9728 metadata of the MCP endpoint, in the path-inserted form. */
  mcpProtectedResourceMetadata: string;
  jwks: string;
}

export function normalizeBaseUrl(url: string): string {
  return url.replace(/\/+$/, '');
}

export function docUrls({ publicBaseUrl, sandbox }: DocContext): DocUrls {
  const root = normalizeBaseUrl(publicBaseUrl);
  const base = sandbox ? `${root}/sandbox` : root;
  const wellKnown = (name: string) => `${root}/.well-known/${name}${sandbox ? '/sandbox' : ''}`;
  return {
    root,
    base,
    production: root,
    sandbox: `${root}/sandbox`,
    mcp: `${base}/mcp`,
    openapi: `${base}/openapi.json`,
    llmsTxt: `${base}/llms.txt`,
    agentsMd: `${base}/agents.md`,
    developers: `${base}/developers`,
    versioning: `${base}/v1/versioning`,
    onboarding: `${base}/v1/onboarding`,
    keys: `${base}/v1/keys`,
    me: `${base}/v1/me`,
    products: `${base}/v1/products`,
    pricing: `${base}/v1/pricing`,
    shops: `${base}/v1/shops`,
    shopRequests: `${base}/v1/shop-requests`,
    oauthToken: `${base}/oauth/token`,
    oauthRegister: `${base}/oauth/register`,
    authorizationServerMetadata: wellKnown('oauth-authorization-server'),
    protectedResourceMetadata: wellKnown('oauth-protected-resource'),
    mcpProtectedResourceMetadata: `${wellKnown('oauth-protected-resource')}/mcp`,
    jwks: `${root}/.well-known/jwks.json`,
  };
}

/** What the documents need of an operation-table entry to link to it. */
export interface LinkableOperation {
  path: string;
  sandbox: SandboxForm;
}

/**
 * An operation's address for this reader. A mirrored path lives under the
 * reader's base; OAuth metadata takes `/sandbox` after its well-known name
 * (RFC 8414 / RFC 9728 path insertion); a shared resource has one address.
 */
export function operationHref(u: DocUrls, op: LinkableOperation): string {
  if (op.sandbox === 'mirrored') return `${u.base}${op.path}`;
  const onSandbox = u.base !== u.root;
  if (op.sandbox === 'path-insertion' && onSandbox) {
    const [, wellKnown, name, ...rest] = op.path.split('/');
    return [u.root, wellKnown, name, 'sandbox', ...rest].join('/');
  }
  return `${u.root}${op.path}`;
}

/** A table entry the documents cannot do without; a table that lacks it is a bug, not a smaller document. */
export function requireOperation(table: readonly OperationDef[], id: RouteId): OperationDef {
  const op = table.find((o) => o.id === id);
  if (!op) throw new Error(`The operation table has no entry '${id}'.`);
  return op;
}

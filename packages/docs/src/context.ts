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
  privacy: string;
  terms: string;
  imprint: string;
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
    privacy: `${base}/privacy`,
    terms: `${base}/terms`,
    imprint: `${base}/imprint`,
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

/** What the documents need of an entry to decide whether a reader can open its address. */
export interface BrowsableOperation extends LinkableOperation {
  id: string;
  method: string;
  auth: string;
  request?: { query?: { shape: Record<string, { isOptional(): boolean }> } };
}

/**
 * Entries a plain GET does not open: the registry proof and the ChatGPT apps
 * challenge exist only where the deployment configured one, and the authorization endpoint needs a client's
 * whole request in its query (which the table does not model as a schema).
 */
const NOT_BROWSABLE = new Set(['getMcpRegistryAuth', 'getOpenaiAppsChallenge', 'authorize']);

/**
 * Whether a link to the entry opens something: a GET without path parameters,
 * credentials or required query. Everything else (POST endpoints, `{id}`
 * templates, the authorization endpoint) is named as code, never as a link a
 * reader follows into a 401, 405 or 404.
 */
export function isBrowsable(op: BrowsableOperation): boolean {
  if (op.method !== 'GET' || op.path.includes('{') || op.auth === 'required' || NOT_BROWSABLE.has(op.id)) return false;
  return Object.values(op.request?.query?.shape ?? {}).every((field) => field.isOptional());
}

/** A table entry the documents cannot do without; a table that lacks it is a bug, not a smaller document. */
export function requireOperation(table: readonly OperationDef[], id: RouteId): OperationDef {
  const op = table.find((o) => o.id === id);
  if (!op) throw new Error(`The operation table has no entry '${id}'.`);
  return op;
}

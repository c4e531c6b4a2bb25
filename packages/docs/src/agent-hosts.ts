// The "Connect from an agent host" section: one Markdown source
// (content/agent-hosts.md) shared by the portal, llms.txt and agents.md.
// Here are only its generated parts: the configurations as JSON (so they are
// valid JSON whatever the base URL), the text that differs between production
// and the sandbox, and the sign-in endpoints, linked from the operation table.
import { LIMITS, SERVICE_PREFIX, type OperationDef, type RouteId } from '@msa/contracts';
import { isBrowsable, operationHref, requireOperation, type DocContext, type DocUrls } from './context.js';

/** The table entries a host meets while it signs in, in the order it meets them. */
const SIGN_IN_OPERATIONS = [
  'mcpProtectedResourceMetadata',
  'authorizationServerMetadata',
  'registerClient',
  'authorize',
  'issueAccessToken',
  'revokeToken',
] as const satisfies readonly RouteId[];

const json = (value: unknown) => JSON.stringify(value, null, 2);

function signInLinks(u: DocUrls, table: readonly OperationDef[]): string {
  return SIGN_IN_OPERATIONS.map((id) => requireOperation(table, id))
    // Endpoints a browser cannot open (POST, the authorization request without its query) are named, not linked.
    .map((op) => {
      const title = op.link?.title ?? op.summary;
      const href = operationHref(u, op);
      return isBrowsable(op) ? `- [${title}](${href}): \`${op.method} ${op.path}\`` : `- ${title}: \`${op.method} ${href}\``;
    })
    .join('\n');
}

function signInWhen(ctx: DocContext, u: DocUrls): string {
  const challenge = 'is answered with `401` and a Bearer challenge (scope `requests:write`), and the host signs in with OAuth:';
  return ctx.sandbox
    ? `On this sandbox endpoint reading and shop requests work without signing in: a shop request without credentials is a sandbox request, stored and never sent. On the production endpoint \`${u.production}/mcp\` the first shop request (\`create_shop_request\`) without credentials ${challenge}`
    : `Reading the catalog, prices and shops works at once, without signing in. The first shop request (\`create_shop_request\`) without credentials ${challenge}`;
}

/** The placeholders of content/agent-hosts.md beyond the common ones. */
export function agentHostVars(ctx: DocContext, u: DocUrls, table: readonly OperationDef[]): Record<string, string | number> {
  const apiKey = `${SERVICE_PREFIX}_${ctx.sandbox ? 'test' : 'live'}_…`;
  return {
    HOST_SIGN_IN_WHEN: signInWhen(ctx, u),
    HOST_API_KEY: apiKey,
    HOST_OAUTH_LINKS: signInLinks(u, table),
    LIVE_SHOP_REQUESTS_PER_DAY: LIMITS.liveShopRequestsPerDay,
    VSCODE_CONFIG: json({ servers: { 'merch-shop': { type: 'http', url: u.mcp } } }),
    VSCODE_CONFIG_WITH_KEY: json({
      inputs: [{ type: 'promptString', id: 'merch-shop-api-key', description: 'Merch-Shop API key', password: true }],
      servers: { 'merch-shop': { type: 'http', url: u.mcp, headers: { Authorization: 'Bearer ${input:merch-shop-api-key}' } } },
    }),
    CURSOR_CONFIG: json({ mcpServers: { 'merch-shop': { url: u.mcp } } }),
    CURSOR_CONFIG_WITH_KEY: json({ mcpServers: { 'merch-shop': { url: u.mcp, headers: { Authorization: `Bearer ${apiKey}` } } } }),
  };
}

// Renders every Markdown document for one reader (base URL, sandbox or not).
// The sources live in content/*.md with {{PLACEHOLDER}}s; the values and the
// generated blocks (tables, lists) come from here.
import { API_VERSION, DEPRECATIONS, LIMITS, OPERATIONS, PRODUCT_NAME, SERVICE_FACTS, SERVICE_PREFIX, type OperationDef, type RouteId } from '@msa/contracts';
import { agentHostVars } from './agent-hosts.js';
import { AGENT_SKILL_NAMES } from './agent-skill-names.js';
import { docUrls, isBrowsable, operationHref, requireOperation, type DocContext, type DocUrls } from './context.js';
import {
  BODY_LIMIT_KB,
  DEPRECATION_NOTICE_DAYS,
  SERVICE_DESCRIPTION,
  errorCodeDocs,
  freeTierLimits,
  limitRows,
  listedOperations,
  scopeList,
  zeroAuthEndpoints,
} from './facts.js';
import { renderHtmlPage } from './html.js';
import { keyFormHtml, keyFormMarkdown } from './key-form.js';
import { MCP_PROTOCOL_VERSIONS, MCP_RESOURCES, MCP_TOOLS } from './mcp-surface.js';
import { LINK_AUTH, buildServiceDocument } from './service-document.js';
import { fillTemplate, loadSource } from './template.js';

function environmentNote(ctx: DocContext, u: DocUrls): string {
  return ctx.sandbox
    ? `**Environment: sandbox** (${u.sandbox}). Every call below goes to the sandbox: shop requests are validated and stored, never sent. Production: ${u.production}.`
    : `**Environment: production** (${u.production}). A live shop request here reaches the operator team. The sandbox at ${u.sandbox} mirrors every endpoint and never sends anything.`;
}

/** Escapes a table cell: a `|` would end the cell. */
const cell = (s: string) => s.replace(/\|/g, '\\|');

function mcpClientConfig(u: DocUrls): string {
  return JSON.stringify(
    { mcpServers: { 'merch-shop': { type: 'http', url: u.mcp, headers: { Authorization: 'Bearer <API_KEY>' } } } },
    null,
    2,
  );
}

function errorCodeSections(publicBaseUrl: string): string {
  const index = errorCodeDocs()
    .map((e) => `[\`${e.code}\`](#${e.code})`)
    .join(' · ');
  const sections = errorCodeDocs().map(
    (e) => `### ${e.code}\n\n**HTTP ${e.status}**: ${e.title}. ${e.hint}\n\n\`docs\`: ${publicBaseUrl}/developers#${e.code}`,
  );
  return [index, ...sections].join('\n\n');
}

function deprecationList(): string {
  if (DEPRECATIONS.length === 0) return 'None. Every operation of v1 is current.';
  return DEPRECATIONS.map((d) => `- \`${d.method} ${d.path}\`: deprecated ${d.deprecatedAt}, sunset ${d.sunset}; notice: ${d.notice}`).join('\n');
}

function credentialsOf(op: OperationDef): string {
  const scope = op.scope ? ` (scope \`${op.scope}\`)` : '';
  return `${LINK_AUTH[op.auth]}${scope}`;
}

const CREDENTIALS_WORDS: Record<OperationDef['auth'], string> = { none: 'no credentials', open: 'credentials optional', required: 'credentials required' };

/**
 * An entry's title as a link where a reader can open its address; a template
 * (`{name}`) links each of its documents instead, and a POST endpoint or one
 * that needs credentials stays text.
 */
function linkedTitle(u: DocUrls, op: OperationDef, title: string): string {
  if (isBrowsable(op)) return `[${title}](${operationHref(u, op)})`;
  if (op.id === 'getAgentSkill') {
    const skills = AGENT_SKILL_NAMES.map((name) => `[${name}](${operationHref(u, op).replace('{name}', name)})`).join(', ');
    return `${title}: ${skills}`;
  }
  return title;
}

/** The endpoint table of the portal: every operation and document the API serves. */
function endpointRows(u: DocUrls, table: readonly OperationDef[]): string {
  return listedOperations(table)
    .map((op) => `| \`${op.method} ${op.path}\` | ${linkedTitle(u, op, cell(op.link?.title ?? op.summary))} | ${credentialsOf(op)} |`)
    .join('\n');
}

/** The API operations for agents, one line each: where, how, with what credentials, and what it does. */
function operationList(u: DocUrls, table: readonly OperationDef[]): string {
  return table
    .filter((op) => op.kind === 'operation' && op.tag !== 'Meta')
    .map((op) => {
      const query = Object.keys(op.request?.query?.shape ?? {});
      const queryText = query.length ? `; query ${query.map((q) => `\`${q}\``).join(', ')}` : '';
      return `- [${op.summary}](${operationHref(u, op)}): \`${op.method} ${op.path}\`${queryText}; ${CREDENTIALS_WORDS[op.auth]}${op.scope ? ` (scope \`${op.scope}\`)` : ''}. ${op.description}`;
    })
    .join('\n');
}

/** The machine-readable ways in, for llms.txt: each from its table entry. */
const DISCOVERY_DOCUMENTS = ['getApiCatalog', 'getMcpServerCard', 'getAgentSkills', 'getMcpRegistryServer'] as const satisfies readonly RouteId[];

function discoveryLinks(u: DocUrls, table: readonly OperationDef[]): string {
  return DISCOVERY_DOCUMENTS.map((id) => requireOperation(table, id))
    .map((op) => `- [${op.link?.title ?? op.summary}](${operationHref(u, op)}): ${op.description}`)
    .join('\n');
}

/** Every placeholder a source may use, for one reader; `table` is the operation table (a test passes its own). */
export function templateVars(ctx: DocContext, table: readonly OperationDef[] = OPERATIONS): Record<string, string | number> {
  const u = docUrls(ctx);
  const limits = limitRows()
    .map((r) => `| ${cell(r.name)} | ${cell(r.value)} |`)
    .join('\n');
  const scopes = scopeList()
    .map((s) => `| \`${s.scope}\` | ${cell(s.description)} |`)
    .join('\n');
  const serviceDoc = buildServiceDocument(ctx, table);
  const vars: Record<string, string | number> = {
    BASE_URL: u.base,
    PUBLIC_BASE_URL: u.production,
    SANDBOX_BASE_URL: u.sandbox,
    MCP_URL: u.mcp,
    OPENAPI_URL: u.openapi,
    LLMS_TXT_URL: u.llmsTxt,
    AGENTS_MD_URL: u.agentsMd,
    DEVELOPERS_URL: u.developers,
    PRIVACY_URL: u.privacy,
    TERMS_URL: u.terms,
    IMPRINT_URL: u.imprint,
    VERSIONING_URL: u.versioning,
    ONBOARDING_URL: u.onboarding,
    SERVICE_DOCUMENT_URL: `${u.base}/`,
    OAUTH_TOKEN_URL: u.oauthToken,
    OAUTH_REGISTER_URL: u.oauthRegister,
    AUTHORIZATION_SERVER_METADATA_URL: u.authorizationServerMetadata,
    PROTECTED_RESOURCE_METADATA_URL: u.protectedResourceMetadata,
    MCP_PROTECTED_RESOURCE_METADATA_URL: u.mcpProtectedResourceMetadata,
    JWKS_URL: u.jwks,
    ENVIRONMENT_NOTE: environmentNote(ctx, u),
    PRODUCT_NAME,
    SERVICE_DESCRIPTION,
    SERVICE_PREFIX,
    API_VERSION,
    RATE_WITH_CREDENTIALS: LIMITS.ratePerMinuteWithCredentials,
    RATE_ANONYMOUS: LIMITS.ratePerMinuteAnonymous,
    FAILED_AUTH_PER_MINUTE: LIMITS.failedAuthPerIpPerMinute,
    LIST_LIMIT_MAX: LIMITS.listProductsLimitMax,
    PRODUCTS_PER_REQUEST: LIMITS.productsPerShopRequest,
    QUOTE_LINES_MAX: LIMITS.quoteLinesMax,
    QUOTE_QUANTITY_MAX: LIMITS.quoteQuantityMax,
    QUOTE_LIFETIME_DAYS: LIMITS.quoteLifetimeDays,
    SHOP_NAME_MAX: LIMITS.shopNameMax,
    DESIGN_WIDTH_MIN: LIMITS.designWidthMinCm,
    DESIGN_WIDTH_MAX: LIMITS.designWidthMaxCm,
    LOGO_MAX_MB: LIMITS.logoMaxBytes / (1024 * 1024),
    TOKEN_LIFETIME_MINUTES: LIMITS.accessTokenLifetimeSeconds / 60,
    IDEMPOTENCY_HOURS: LIMITS.idempotencyWindowSeconds / 3600,
    REPLY_WITHIN_HOURS: SERVICE_FACTS.replyWithinHours,
    BODY_LIMIT_KB,
    DEPRECATION_NOTICE_DAYS,
    LIMITS_ROWS: limits,
    SCOPE_ROWS: scopes,
    MCP_TOOL_LIST: MCP_TOOLS.map((t) => `\`${t.name}\``).join(', '),
    MCP_RESOURCE_LIST: MCP_RESOURCES.map((r) => `\`${r.name}\` (\`${r.uri}\`)`).join(', '),
    MCP_PROTOCOL_VERSIONS: MCP_PROTOCOL_VERSIONS.join(' and '),
    MCP_CLIENT_CONFIG: mcpClientConfig(u),
    ERROR_CODE_SECTIONS: errorCodeSections(u.production),
    DEPRECATION_LIST: deprecationList(),
    ZERO_AUTH_LIST: zeroAuthEndpoints(u, table)
      .map((e) => `- \`${e.method} ${e.path}\`: ${e.what} (${e.href})`)
      .join('\n'),
    LINK_LIST: Object.entries(serviceDoc.links)
      .map(([rel, link]) => `- **${rel}**: \`${link.method}\` ${link.href} (${link.title}; auth: ${link.auth}${link.scope ? `, scope \`${link.scope}\`` : ''})`)
      .join('\n'),
    ENDPOINT_ROWS: endpointRows(u, table),
    OPERATION_LIST: operationList(u, table),
    IDEMPOTENT_OPERATIONS: table
      .filter((op) => op.idempotent)
      .map((op) => `\`${op.method} ${op.path}\``)
      .join(', '),
    KEY_CREATIONS_PER_DAY: LIMITS.keyCreationsPerIpPerDay,
    KEY_FORM: keyFormMarkdown(ctx, u, table),
    DISCOVERY_LINKS: discoveryLinks(u, table),
    ...agentHostVars(ctx, u, table),
  };
  // One section in three documents: filled here, placed by each source as {{AGENT_HOSTS}}.
  vars.AGENT_HOSTS = fillTemplate(loadSource('agent-hosts.md'), vars);
  return vars;
}

const render =
  (source: string) =>
  (ctx: DocContext, table: readonly OperationDef[] = OPERATIONS) =>
    fillTemplate(loadSource(source), templateVars(ctx, table));

/** `/llms.txt` (llmstxt.org shape). */
export const renderLlmsTxt = render('llms.md');
/** `/agents.md`: how an agent should act. */
export const renderAgentsMd = render('agents.md');
/** `/developers` as Markdown. */
export const renderDevelopersMarkdown = render('developers.md');

/** `/developers` as HTML: the same source, with the key form where the Markdown describes it. */
export function renderDevelopersHtml(ctx: DocContext, table: readonly OperationDef[] = OPERATIONS): string {
  const u = docUrls(ctx);
  const vars = { ...templateVars(ctx, table), KEY_FORM: keyFormHtml(ctx, u, table) };
  return renderHtmlPage(fillTemplate(loadSource('developers.md'), vars), { markdownUrl: u.developers, keyForm: true });
}

/** `/v1/versioning` as Markdown. */
export const renderVersioningMarkdown = render('versioning.md');
/** `/v1/onboarding` and `GET /v1/keys` as Markdown. */
export const renderOnboardingMarkdown = render('onboarding.md');
/** `/` as Markdown. */
export const renderServiceDocumentMarkdown = render('service.md');

/** `/v1/versioning` as JSON: spec §9 as data. */
export function buildVersioningPolicy(ctx: DocContext) {
  const u = docUrls(ctx);
  return {
    current_version: API_VERSION,
    path_prefix: '/v1',
    version_header: 'API-Version',
    policy: [
      'The version is in the path prefix /v1 and in the response header API-Version.',
      'Version 1 is additive-only: within v1 fields may be added, none is removed.',
      `Deprecations are announced at least ${DEPRECATION_NOTICE_DAYS} days ahead with the response headers Deprecation and Sunset (RFC 8594).`,
      'The policy is served at GET /v1/versioning (JSON, or Markdown with Accept: text/markdown).',
    ],
    additive_only: true,
    compatibility: 'Ignore fields you do not know; fields, operations, error codes and enumeration values may be added within v1.',
    breaking_changes: 'Only in a new version with a new path prefix (/v2), next to /v1.',
    deprecation: {
      minimum_notice_days: DEPRECATION_NOTICE_DAYS,
      headers: ['Deprecation', 'Sunset', 'Link'],
      references: ['RFC 9745 (Deprecation)', 'RFC 8594 (Sunset)'],
    },
    deprecations: DEPRECATIONS.map((d) => ({
      method: d.method,
      path: d.path,
      deprecated_at: d.deprecatedAt,
      sunset: d.sunset,
      notice: `${u.production}${d.notice}`,
    })),
    links: {
      self: u.versioning,
      openapi: u.openapi,
      developer_portal: `${u.developers}#versioning`,
    },
  };
}

function curlCreateKey(u: DocUrls): string {
  return `curl -X POST ${u.keys} -H "Content-Type: application/json" -H "Idempotency-Key: <UUID>" -d '{"name": "my-agent", "email": "dev@example.org", "mode": "sandbox"}'`;
}

function curlRegister(u: DocUrls): string {
  return `curl -X POST ${u.oauthRegister} -H "Content-Type: application/json" -d '{"client_name": "my-agent", "contacts": ["dev@example.org"], "grant_types": ["client_credentials"], "mode": "sandbox"}'`;
}

/** `/v1/onboarding` and `GET /v1/keys` as JSON. */
export function buildOnboarding(ctx: DocContext, table: readonly OperationDef[] = OPERATIONS) {
  const u = docUrls(ctx);
  return {
    title: `Onboarding: ${PRODUCT_NAME}`,
    environment: ctx.sandbox ? 'sandbox' : 'production',
    sandbox: ctx.sandbox,
    tier: 'free',
    price: { amount: 0, currency: 'EUR', description: 'The API and shop setup are free; members pay for what they order; minimum order quantity 1.' },
    free_tier_limits: freeTierLimits(),
    credentials: {
      approval: 'none: free and self-serve',
      shown_once: ['api_key', 'client_secret'],
      create_api_key: {
        method: 'POST',
        href: u.keys,
        operation_id: 'createApiKey',
        body: { name: 'my-agent', email: 'dev@example.org', mode: 'sandbox', scopes: scopeList().map((s) => s.scope) },
        curl: curlCreateKey(u),
        returns: ['api_key', 'client_id', 'client_secret', 'mode', 'scopes', 'tier', 'limits', 'created_at'],
      },
      register_oauth_client: {
        method: 'POST',
        href: u.oauthRegister,
        operation_id: 'registerClient',
        body: { client_name: 'my-agent', contacts: ['dev@example.org'], grant_types: ['client_credentials'], mode: 'sandbox' },
        curl: curlRegister(u),
      },
      use: ['Authorization: Bearer <API_KEY>', 'X-API-Key: <API_KEY>', 'Authorization: Bearer <ACCESS_TOKEN>'],
      modes: {
        sandbox: { key_prefix: `${SERVICE_PREFIX}_test_`, effect: 'Every path becomes a sandbox path: shop requests are stored, never sent.' },
        live: { key_prefix: `${SERVICE_PREFIX}_live_`, effect: 'Shop requests on the production base address reach the operator team.' },
      },
    },
    oauth: {
      grant_types: ['client_credentials'],
      token_endpoint: u.oauthToken,
      registration_endpoint: u.oauthRegister,
      authorization_server_metadata: u.authorizationServerMetadata,
      protected_resource_metadata: u.protectedResourceMetadata,
      jwks_uri: u.jwks,
      token_endpoint_auth_methods: ['client_secret_basic', 'client_secret_post'],
      access_token_lifetime_seconds: LIMITS.accessTokenLifetimeSeconds,
      curl: `curl -X POST ${u.oauthToken} -u "<CLIENT_ID>:<CLIENT_SECRET>" -d grant_type=client_credentials`,
    },
    scopes: scopeList(),
    sandbox_base_url: u.sandbox,
    production_base_url: u.production,
    sandbox_behaviour: 'Every endpoint exists under the sandbox base address with the same shapes; a shop request is validated and stored, never sent.',
    zero_auth_endpoints: zeroAuthEndpoints(u, table),
    mcp: {
      href: u.mcp,
      credentials: ctx.sandbox
        ? 'optional; without them create_shop_request creates a sandbox request, owned by the client IP, which get_shop_request reads back from that IP'
        : 'optional for reading the catalog and shops; create_shop_request needs credentials with requests:write and get_shop_request with requests:read: without them each answers 401 with a Bearer challenge (resource_metadata, scope) that OAuth-capable hosts follow, and without the scope 403 insufficient_scope',
      protected_resource_metadata: u.mcpProtectedResourceMetadata,
    },
    links: {
      self: u.onboarding,
      keys: u.keys,
      llms_txt: u.llmsTxt,
      agents_md: u.agentsMd,
      developer_portal: u.developers,
      openapi: u.openapi,
      service_document: `${u.base}/`,
    },
  };
}

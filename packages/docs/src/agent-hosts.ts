// The "Connect from an agent host" section: one Markdown source
// (content/agent-hosts.md) shared by the portal, llms.txt and agents.md.
// Here are its generated parts: one guide per host from the table below (the
// configurations as JSON, so they are valid JSON whatever the base URL), the
// text that differs between production and the sandbox, and the sign-in
// endpoints, linked from the operation table.
import { LIMITS, PRODUCT_NAME, SERVICE_PREFIX, type OperationDef, type RouteId } from '@msa/contracts';
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

/** What a guide is written from: this reader's addresses and the API key's shape. */
interface GuideContext {
  u: DocUrls;
  sandbox: boolean;
  apiKey: string;
}

/** A step: a sentence, and below it what to paste or run. */
interface GuideStep {
  text: string;
  block?: { lang: 'sh' | 'json' | 'text'; body: string };
}

/**
 * One host's connection guide. The portal, llms.txt and agents.md render every
 * guide from this shape, so the hosts differ only in their data.
 */
export interface HostGuide {
  /** The guide's anchor on the portal: `/developers#<id>`. */
  id: `connect-${string}`;
  host: string;
  /** Where to click or what to run, in order. */
  steps: (c: GuideContext) => GuideStep[];
  /** When and how the host opens our consent page. */
  signIn: string;
  /** Where to ask once the host is connected. */
  tryIn: string;
  /** An API key instead of signing in, or why the host takes none. */
  apiKey: (c: GuideContext) => GuideStep;
}

/**
 * Hosts of the guides that render MCP Apps views (the `io.modelcontextprotocol/ui`
 * extension): there the product, quote and shop-request tools show cards
 * instead of text. Claude Code and Cursor show the same results as text.
 */
export const VIEW_HOSTS = ['claude.ai (and Claude Desktop)', 'ChatGPT', 'VS Code'] as const;

/** The tools whose results have a view, and what a person sees there. */
export const VIEWS_NOTE =
  `In hosts that render MCP Apps (${VIEW_HOSTS.join(', ')}), search_products and get_product show product cards with the garment in the chosen colour and the volume prices, ` +
  'get_quote shows the quote with its totals, and create_shop_request and get_shop_request show the request; the buttons "Get a quote" and "Request shop" there call the same tools through the host, ' +
  'so a shop request from a view needs the same sign-in. Other hosts get the same results as text.';

const TRY_PROMPT = '*Search the Merch-Shop catalog for hoodies.*';

export const HOST_GUIDES: readonly HostGuide[] = [
  {
    id: 'connect-chatgpt',
    host: 'ChatGPT',
    steps: ({ u }) => [
      { text: 'In **Settings → Apps** (earlier **Apps & Connectors**), open **Advanced settings** and turn on **Developer mode**.' },
      {
        text: [
          'Back in **Settings → Apps**, choose **Create app** (earlier **Create**) and fill in:',
          '   - Name: `Merch-Shop`',
          `   - MCP server URL: \`${u.mcp}\``,
          '   - Authentication: **OAuth**',
        ].join('\n'),
      },
      { text: 'Confirm that you trust the app and choose **Create**.' },
    ],
    signIn: 'ChatGPT signs in as it creates the app: it opens our consent page.',
    tryIn: 'In a chat, choose **+** → **More** → **Developer mode**, turn on Merch-Shop, and ask',
    apiKey: () => ({ text: 'does not fit here: ChatGPT sends no static headers and signs in through the consent page.' }),
  },
  {
    id: 'connect-claude-ai',
    host: 'claude.ai',
    steps: ({ u }) => [
      {
        text: 'Open **Customize → Connectors** (in earlier versions **Settings → Connectors**) and choose **Add custom connector**. On Team and Enterprise plans an owner adds it under **Organization settings → Connectors**, and each member then connects.',
      },
      { text: 'Name `Merch-Shop`, remote MCP server URL:', block: { lang: 'text', body: u.mcp } },
      {
        text: 'Authentication: **Required when the server asks**. Claude then connects without signing in, so reading the catalog works at once, and asks the person to sign in when a shop request needs it. **Always required** would make everyone sign in before the first search; with **None** nobody can sign in and shop requests fail.',
      },
      {
        text: 'OAuth client: **Use Anthropic\'s hosted client metadata** (we read Client ID Metadata Documents); **register one automatically** works too. In the earlier one-screen dialog, leave the OAuth client id and secret under **Advanced settings** empty.',
      },
      { text: 'Choose **Add**. Claude Desktop and the Claude mobile apps use the same connector.' },
    ],
    signIn: 'When the first shop request needs sign-in, Claude asks the person to connect and opens our consent page.',
    tryIn: 'Turn the connector on in a chat through **+** → **Connectors**, and ask',
    apiKey: ({ apiKey }) => ({
      text: `only where an organization has the beta **Request headers** section: Authentication **None**, header \`authorization\` with the value \`Bearer ${apiKey}\`. Otherwise claude.ai signs in through the consent page.`,
    }),
  },
  {
    id: 'connect-claude-code',
    host: 'Claude Code',
    steps: ({ u }) => [
      { text: 'Add the server (with `--scope user` it is there in every project):', block: { lang: 'sh', body: `claude mcp add --transport http merch-shop ${u.mcp}` } },
      { text: 'Reading works at once. To sign in, run `/mcp` in a session, choose `merch-shop` and **Authenticate**; Claude Code marks the server as needing it when a shop request is refused for sign-in.' },
    ],
    signIn: '**Authenticate** opens our consent page in the browser.',
    tryIn: 'In a session, ask',
    apiKey: ({ u, apiKey }) => ({
      text: 'add the server with a header instead of signing in:',
      block: { lang: 'sh', body: `claude mcp add --transport http merch-shop ${u.mcp} \\\n  --header "Authorization: Bearer ${apiKey}"` },
    }),
  },
  {
    id: 'connect-vs-code',
    host: 'VS Code',
    steps: ({ u }) => [
      {
        text: '`.vscode/mcp.json` in the workspace (or the user configuration, **MCP: Open User Configuration**):',
        block: { lang: 'json', body: json({ servers: { 'merch-shop': { type: 'http', url: u.mcp } } }) },
      },
      { text: 'Save the file and start the server: **MCP: List Servers** → `merch-shop` → **Start Server**.' },
    ],
    signIn: 'When a shop request needs sign-in, VS Code asks whether `merch-shop` may sign in and opens our consent page in the browser.',
    tryIn: 'In the Chat view in **Agent** mode, ask',
    apiKey: ({ u }) => ({
      text: 'VS Code asks for it once through an input and keeps it out of the file.',
      block: {
        lang: 'json',
        body: json({
          inputs: [{ type: 'promptString', id: 'merch-shop-api-key', description: `${PRODUCT_NAME} key`, password: true }],
          servers: { 'merch-shop': { type: 'http', url: u.mcp, headers: { Authorization: 'Bearer ${input:merch-shop-api-key}' } } },
        }),
      },
    }),
  },
  {
    id: 'connect-cursor',
    host: 'Cursor',
    steps: ({ u }) => [
      {
        text: '`~/.cursor/mcp.json` (or `.cursor/mcp.json` in a project; **Add Custom MCP** in Cursor\'s MCP settings opens it):',
        block: { lang: 'json', body: json({ mcpServers: { 'merch-shop': { url: u.mcp } } }) },
      },
      { text: 'Check that `merch-shop` is turned on in Cursor\'s MCP settings.' },
    ],
    signIn: 'When a shop request needs sign-in, Cursor opens our consent page in the browser; where its MCP settings show **Needs login** beside `merch-shop`, that starts it too.',
    tryIn: 'In the Agent chat, ask',
    apiKey: ({ u, apiKey }) => ({
      text: 'in a header (`"Bearer ${env:MERCH_SHOP_API_KEY}"` reads it from the environment instead):',
      block: { lang: 'json', body: json({ mcpServers: { 'merch-shop': { url: u.mcp, headers: { Authorization: `Bearer ${apiKey}` } } } }) },
    }),
  },
];

/** A fenced block, indented to sit inside a list item when `indent` says so. */
function fence({ lang, body }: NonNullable<GuideStep['block']>, indent = ''): string {
  return [`\`\`\`${lang}`, ...body.split('\n'), '```'].map((line) => `${indent}${line}`).join('\n');
}

function stepMarkdown(step: GuideStep, n: number): string {
  const item = `${n}. ${step.text}`;
  return step.block ? `${item}\n\n${fence(step.block, '   ')}` : item;
}

/** What every guide says about our consent page, for this reader's endpoint. */
function consentText({ u, sandbox }: GuideContext): string {
  const page = sandbox
    ? 'Our consent page confirms an e-mail address with a 6-digit code, or **Try the sandbox without e-mail** needs none; either way shop requests stay on the sandbox'
    : 'Our consent page asks for an e-mail address and the 6-digit code sent to it, then **live** or **sandbox**; **Try the sandbox without e-mail** needs no code and stays on the sandbox';
  return `${page} ([privacy notice](${u.privacy})).`;
}

function otherEndpoint({ u, sandbox }: GuideContext): string {
  return sandbox
    ? `This guide uses the sandbox endpoint, where shop requests work without signing in and are stored, never sent. For live shop requests use \`${u.production}/mcp\` instead.`
    : `use \`${u.sandbox}/mcp\` instead, and shop requests work without signing in: stored, never sent.`;
}

export function hostGuideMarkdown(guide: HostGuide, c: GuideContext): string {
  const key = guide.apiKey(c);
  return [
    `### ${guide.host} {#${guide.id}}`,
    guide.steps(c).map((step, i) => stepMarkdown(step, i + 1)).join('\n\n'),
    `**What the person sees:** ${guide.signIn} ${consentText(c)}`,
    `**Try it:** ${guide.tryIn}: ${TRY_PROMPT}`,
    `**${c.sandbox ? 'Live' : 'Without signing in'}:** ${otherEndpoint(c)}`,
    `**With an API key:** ${key.text}`,
    ...(key.block ? [fence(key.block)] : []),
  ].join('\n\n');
}

/** Links to every guide, absolute so they work in llms.txt and agents.md too. */
function guideIndex(u: DocUrls): string {
  return HOST_GUIDES.map((g) => `[${g.host}](${u.developers}#${g.id})`).join(' · ');
}

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
  const c: GuideContext = { u, sandbox: ctx.sandbox, apiKey };
  return {
    HOST_SIGN_IN_WHEN: signInWhen(ctx, u),
    HOST_API_KEY: apiKey,
    HOST_OAUTH_LINKS: signInLinks(u, table),
    LIVE_SHOP_REQUESTS_PER_DAY: LIMITS.liveShopRequestsPerDay,
    HOST_GUIDE_INDEX: guideIndex(u),
    HOST_GUIDES: HOST_GUIDES.map((g) => hostGuideMarkdown(g, c)).join('\n\n'),
    VIEW_HOSTS: VIEW_HOSTS.join(', '),
    VIEWS_NOTE,
  };
}

import { BOUNDS, ERROR_CODE_LIST, LIMITS, OPERATIONS, OPERATION_IDS, SERVICE_FACTS } from '@msa/contracts';
import { describe, expect, it } from 'vitest';
import {
  buildOnboarding,
  buildVersioningPolicy,
  renderAgentsMd,
  renderDevelopersHtml,
  renderDevelopersMarkdown,
  renderLlmsTxt,
  renderOnboardingMarkdown,
  renderServiceDocumentMarkdown,
  renderVersioningMarkdown,
} from './documents.js';
import { HOST_GUIDES } from './agent-hosts.js';
import { renderHtmlPage, slugify } from './html.js';
import { openApiFor, renderOpenApiMarkdown } from './openapi-document.js';
import { ASSET_PATHS, DISCOVERY_PATHS, DOCUMENT_PATHS, LEGAL_PATHS } from './router.js';
import { buildServiceDocument } from './service-document.js';
import { TemplateError, fillTemplate } from './template.js';

const BASE = 'https://merch.example.net';
const production = { publicBaseUrl: BASE, sandbox: false };
const sandbox = { publicBaseUrl: BASE, sandbox: true };

const markdownDocuments = {
  'llms.txt': renderLlmsTxt,
  'agents.md': renderAgentsMd,
  developers: renderDevelopersMarkdown,
  versioning: renderVersioningMarkdown,
  onboarding: renderOnboardingMarkdown,
  'service document': renderServiceDocumentMarkdown,
  openapi: renderOpenApiMarkdown,
};

describe('Markdown documents', () => {
  for (const [name, render] of Object.entries(markdownDocuments)) {
    it(`renders ${name} for a base URL with every placeholder filled`, () => {
      const text = render(production);

      expect(text).toMatch(/^# /);
      expect(text).not.toMatch(/\{\{|\}\}/);
      expect(text).toContain(BASE);
      expect(text).not.toContain('undefined');
    });

    it(`renders ${name} for the sandbox with API calls under /sandbox`, () => {
      const text = render(sandbox);

      expect(text).not.toMatch(/\{\{|\}\}/);
      expect(text).toContain(`${BASE}/sandbox`);
      expect(text).not.toMatch(new RegExp(`${BASE.replace(/\./g, '\\.')}/v1/`));
    });
  }

  it('strips a trailing slash from the base URL', () => {
    const text = renderLlmsTxt({ publicBaseUrl: `${BASE}/`, sandbox: false });

    expect(text).toContain(`${BASE}/agents.md`);
    expect(text).not.toContain(`${BASE}//`);
  });
});

describe('figures in the documents', () => {
  it('states the reply time, idempotency window and body limit from contracts', () => {
    const reply = `within ${SERVICE_FACTS.replyWithinHours} hours`;

    for (const render of [renderLlmsTxt, renderAgentsMd, renderDevelopersMarkdown]) expect(render(production)).toContain(reply);
    expect(renderAgentsMd(production)).toContain(`within ${LIMITS.idempotencyWindowSeconds / 3600} hours`);
    expect(renderDevelopersMarkdown(production)).toContain(`| Request body | max ${BOUNDS.bodyMaxBytes / 1024} kB |`);
  });

  it('lists every operation of the specification in the portal endpoint table and in llms.txt', () => {
    const portal = renderDevelopersMarkdown(production);
    const llms = renderLlmsTxt(production);

    expect(portal).toContain('| `POST /v1/shop-requests` |');
    expect(portal).toContain('| `GET /.well-known/jwks.json` |');
    expect(llms).toContain(`\`POST /v1/shop-requests\`; credentials required (scope \`requests:write\`)`);
  });
});

describe('quotes in the documents', () => {
  it('tell agents to ask for a quote instead of computing prices, on the reader\'s base URL, with the lifetime from contracts', () => {
    const lifetime = `${LIMITS.quoteLifetimeDays} days`;

    for (const render of [renderLlmsTxt, renderAgentsMd, renderDevelopersMarkdown]) {
      const text = render(production);
      expect(text).toContain(`POST ${BASE}/v1/quotes`);
      expect(text).toContain('quote_id');
      expect(text).toContain(lifetime);
    }
    expect(renderAgentsMd(sandbox)).toContain(`POST ${BASE}/sandbox/v1/quotes`);
    expect(renderDevelopersMarkdown(production)).toContain('## Quotes');
    expect(renderOnboardingMarkdown(production)).toContain(`| Quote lifetime (read back and named by a shop request until then) | ${lifetime} |`);
    expect(buildOnboarding(production).free_tier_limits).toMatchObject({ lines_per_quote: LIMITS.quoteLinesMax, quote_lifetime_days: LIMITS.quoteLifetimeDays });
  });

  it('list both quote operations among the calls that need no credentials', () => {
    const llms = renderLlmsTxt(production);

    expect(llms).toContain('`POST /v1/quotes`; credentials optional');
    expect(llms).toContain('`GET /v1/quotes/{id}`; credentials optional');
  });
});

describe('the operation table and the documents router', () => {
  it('sends to the documents exactly the paths the router answers', () => {
    const toDocs = OPERATIONS.filter((op) => op.service === 'docs').map((op) => op.path);

    expect([...new Set(toDocs)].sort()).toEqual([...DOCUMENT_PATHS, ...LEGAL_PATHS, ...ASSET_PATHS, ...DISCOVERY_PATHS].sort());
  });
});

describe('llms.txt', () => {
  const text = renderLlmsTxt(production);

  it('follows the llmstxt.org shape: H1, blockquote summary, H2 sections of links', () => {
    const lines = text.split('\n');

    expect(lines[0]).toBe('# Merch-Shop Agent API');
    expect(lines.find((l) => l.trim() !== '' && !l.startsWith('# '))).toMatch(/^> /);
    expect(text).toMatch(/^## Docs$/m);
    expect(text).toMatch(/^## Optional$/m);
    expect(text).toMatch(/^- \[[^\]]+\]\(https?:\/\/[^)]+\): /m);
  });

  it('links to every Markdown document', () => {
    for (const path of ['/agents.md', '/developers', '/v1/onboarding', '/v1/versioning', '/openapi.json', '/mcp']) {
      expect(text).toContain(`](${BASE}${path})`);
    }
    expect(text).toContain(`](${BASE}/)`);
  });

  it('links the API catalog, the MCP server card, the agent skills and the registry entry', () => {
    for (const path of ['/.well-known/api-catalog', '/mcp/server-card', '/.well-known/agent-skills/index.json', '/server.json']) {
      expect(text).toMatch(new RegExp(`\\]\\(https://[^)]+${path.replace(/[.]/g, '\\.')}\\)`));
    }
  });

  it('explains how to start in three calls', () => {
    expect(text).toContain('## Start in three calls');
    expect(text).toContain(`${BASE}/v1/products`);
    expect(text).toContain(`POST ${BASE}/v1/keys`);
    expect(text).toContain(`${BASE}/sandbox/v1/shop-requests`);
  });
});

describe('agents.md', () => {
  const text = renderAgentsMd(production);

  it('covers sandbox, idempotency, handles, confirmation, errors, limits and data protection', () => {
    for (const needle of ['sandbox', 'Idempotency-Key', 'Never invent', 'Confirm with the human', 'error.fields', 'hint', 'Retry-After', 'RateLimit', 'contact person']) {
      expect(text).toContain(needle);
    }
  });

  it('states the limits from contracts', () => {
    expect(text).toContain(`| ${LIMITS.ratePerMinuteWithCredentials} |`);
    expect(text).toContain(`| ${LIMITS.liveShopRequestsPerDay} |`);
  });

  it('states the brute-force limits: failed authentications per address and the token back-off per client', () => {
    expect(text).toMatch(new RegExp(`Failed authentications per IP address per minute.*\\| ${LIMITS.failedAuthPerIpPerMinute} \\|`));
    expect(text).toMatch(new RegExp(`Wrong client secrets per \`client_id\`.*\\| ${LIMITS.tokenFailuresBeforeBackoff}; pause`));
  });
});

describe('developer portal', () => {
  const markdown = renderDevelopersMarkdown(production);
  const html = renderHtmlPage(markdown, { markdownUrl: `${BASE}/developers` });

  it('gives every error code a heading whose anchor is the code', () => {
    for (const code of ERROR_CODE_LIST) {
      expect(markdown).toMatch(new RegExp(`^### ${code}$`, 'm'));
      expect(html).toContain(`id="${code}"`);
    }
  });

  it('is self-contained HTML: inline CSS, no scripts, no external assets', () => {
    expect(html).toMatch(/^<!doctype html>/);
    expect(html).toContain('<style>');
    expect(html).not.toMatch(/<script/i);
    expect(html).not.toMatch(/<link[^>]+rel="stylesheet"/i);
    expect(html).not.toMatch(/\ssrc=/i);
  });

  it('names the MCP clients that work, each with a configuration pointing at the MCP endpoint', () => {
    const mcp = markdown.slice(markdown.indexOf('\n## MCP\n'), markdown.indexOf('\n## Limits\n'));

    expect(mcp).toContain(`npx -y @modelcontextprotocol/inspector --cli ${BASE}/mcp --transport http`);
    expect(mcp).toMatch(/Inspector\*\* \(needs Node\.js 22 or newer/);
    expect(mcp).toContain("from '@modelcontextprotocol/sdk/client/streamableHttp.js'");
    expect(mcp).toContain("import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client'");
    expect(mcp.match(/new StreamableHTTPClientTransport\(new URL\('([^']+)'\)/g)).toEqual([
      `new StreamableHTTPClientTransport(new URL('${BASE}/mcp')`,
      `new StreamableHTTPClientTransport(new URL('${BASE}/mcp')`,
    ]);
    expect(mcp.match(/Authorization: 'Bearer <API_KEY>'/g)).toHaveLength(2);
    expect(mcp).toContain(`"url": "${BASE}/mcp"`);
  });

  it('points every MCP client configuration at the sandbox endpoint on the sandbox', () => {
    const mcp = renderDevelopersMarkdown(sandbox);

    expect(mcp).toContain(`--cli ${BASE}/sandbox/mcp --transport http`);
    expect(mcp).toContain(`new URL('${BASE}/sandbox/mcp')`);
    expect(mcp).toContain(`"url": "${BASE}/sandbox/mcp"`);
  });

  it('links the icon the documents router serves, root-relative so it stays same-origin', () => {
    expect(html).toContain('<link rel="icon" type="image/svg+xml" href="/favicon.ico">');
  });

  it('has a quick start with curl, authentication, sandbox, limits, headers and MCP sections', () => {
    for (const id of ['quick-start', 'authentication', 'sandbox', 'limits', 'headers', 'mcp', 'error-codes']) {
      expect(html).toContain(`id="${id}"`);
    }
    expect(markdown).toContain('curl');
    expect(markdown).toContain('X-API-Key');
    expect(markdown).toContain('"mcpServers"');
    for (const header of ['RateLimit', 'Retry-After', 'API-Version', 'Idempotency-Key', 'Deprecation', 'Sunset']) {
      expect(markdown).toContain(`\`${header}\``);
    }
  });
});

describe('connecting from an agent host', () => {
  const documents = { 'developer portal': renderDevelopersMarkdown, 'llms.txt': renderLlmsTxt, 'agents.md': renderAgentsMd };

  /** The section from its heading to the next heading of the same level. */
  function hostSection(text: string): string {
    const heading = /^## (?:\d+\. )?Connect from an agent host$/m.exec(text);
    expect(heading).not.toBeNull();
    const rest = text.slice(heading!.index + heading![0].length);
    const next = rest.search(/^## /m);
    return next === -1 ? rest : rest.slice(0, next);
  }

  /** One host's guide: from its heading to the next heading. */
  function guide(section: string, id: string): string {
    const heading = new RegExp(`^### [^\\n]+ \\{#${id}\\}$`, 'm').exec(section);
    expect(heading, id).not.toBeNull();
    const rest = section.slice(heading!.index);
    const next = rest.slice(4).search(/^### /m);
    return next === -1 ? rest : rest.slice(0, next + 4);
  }

  /** The JSON of the first fenced json block after `marker`, inside a list item or not. */
  function jsonAfter(text: string, marker: string): unknown {
    const from = text.indexOf(marker);
    expect(from, marker).toBeGreaterThan(-1);
    const block = /^( *)```json\n([\s\S]*?)\n\1```/m.exec(text.slice(from));
    const indent = block![1]!;
    return JSON.parse(block![2]!.split('\n').map((line) => line.slice(indent.length)).join('\n'));
  }

  for (const [name, render] of Object.entries(documents)) {
    describe(name, () => {
      const section = hostSection(render(production));

      it('says what happens: consent page, e-mailed code, live or sandbox, shared quota', () => {
        expect(section).toContain('`401` and a Bearer challenge');
        expect(section).toContain('consent page');
        expect(section).toContain('6-digit code');
        expect(section).toMatch(/\*\*live\*\*.*\*\*sandbox\*\*/);
        expect(section).toContain('**Try the sandbox without e-mail**');
        expect(section).toContain(`${LIMITS.liveShopRequestsPerDay} live shop requests a day`);
        expect(section).toContain('an API key works too');
      });

      it('has one guide per host under its own anchor, each listed with a link to it', () => {
        for (const { id, host } of HOST_GUIDES) {
          expect(section.match(new RegExp(`\\{#${id}\\}`, 'g')), id).toHaveLength(1);
          expect(section).toContain(`[${host}](${BASE}/developers#${id})`);
        }
        expect(HOST_GUIDES.map((g) => g.host)).toEqual(['ChatGPT', 'claude.ai', 'Claude Code', 'VS Code', 'Cursor']);
      });

      it('gives every guide what the person sees, a way to try it, the sandbox endpoint and the privacy notice', () => {
        for (const { id } of HOST_GUIDES) {
          const text = guide(section, id);

          expect(text, id).toContain('**What the person sees:**');
          expect(text, id).toContain('consent page');
          expect(text, id).toContain('6-digit code');
          expect(text, id).toContain('**Try the sandbox without e-mail** needs no code');
          expect(text, id).toContain(`[privacy notice](${BASE}/privacy)`);
          expect(text, id).toContain('**Try it:**');
          expect(text, id).toContain('for hoodies');
          expect(text, id).toContain(`\`${BASE}/sandbox/mcp\``);
        }
      });

      it('configures ChatGPT with developer mode, the MCP server URL and OAuth', () => {
        expect(guide(section, 'connect-chatgpt')).toMatch(
          new RegExp(`Developer mode[\\s\\S]*Create app[\\s\\S]*MCP server URL: \`${BASE}/mcp\`\\n   - Authentication: \\*\\*OAuth\\*\\*`),
        );
      });

      it('configures claude.ai with the URL and sign-in when the server asks', () => {
        const text = guide(section, 'connect-claude-ai');

        expect(text).toContain('**Add custom connector**');
        expect(text).toContain(`   \`\`\`text\n   ${BASE}/mcp\n   \`\`\``);
        expect(text).toContain('Authentication: **Required when the server asks**');
        expect(text).toContain("**Use Anthropic's hosted client metadata**");
      });

      it('configures Claude Code with OAuth through /mcp, and with an API key header', () => {
        const text = guide(section, 'connect-claude-code');

        expect(text).toContain(`   claude mcp add --transport http merch-shop ${BASE}/mcp\n`);
        expect(text).toContain('run `/mcp` in a session, choose `merch-shop` and **Authenticate**');
        expect(text).toContain(`claude mcp add --transport http merch-shop ${BASE}/mcp \\\n  --header "Authorization: Bearer msa_live_…"`);
      });

      it('configures VS Code in .vscode/mcp.json, and with the key from an input', () => {
        const text = guide(section, 'connect-vs-code');

        expect(jsonAfter(text, '.vscode/mcp.json')).toEqual({ servers: { 'merch-shop': { type: 'http', url: `${BASE}/mcp` } } });
        expect(jsonAfter(text, '**With an API key:**')).toEqual({
          inputs: [{ type: 'promptString', id: 'merch-shop-api-key', description: expect.any(String), password: true }],
          servers: { 'merch-shop': { type: 'http', url: `${BASE}/mcp`, headers: { Authorization: 'Bearer ${input:merch-shop-api-key}' } } },
        });
      });

      it('configures Cursor in ~/.cursor/mcp.json, and with headers', () => {
        const text = guide(section, 'connect-cursor');

        expect(jsonAfter(text, '~/.cursor/mcp.json')).toEqual({ mcpServers: { 'merch-shop': { url: `${BASE}/mcp` } } });
        expect(jsonAfter(text, '**With an API key:**')).toEqual({
          mcpServers: { 'merch-shop': { url: `${BASE}/mcp`, headers: { Authorization: 'Bearer msa_live_…' } } },
        });
      });

      it('shows the TypeScript SDK with an authProvider and with static headers', () => {
        expect(section).toContain("from '@modelcontextprotocol/sdk/client/streamableHttp.js'");
        expect(section).toContain(`new StreamableHTTPClientTransport(new URL('${BASE}/mcp'), { authProvider })`);
        expect(section).toContain('await transport.finishAuth(');
        expect(section).toContain(`new StreamableHTTPClientTransport(new URL('${BASE}/mcp'), {\n  requestInit: { headers: { Authorization: 'Bearer msa_live_…' } },`);
      });

      it('links the sign-in metadata of the operation table and names the endpoints a browser cannot open', () => {
        for (const id of ['authorizationServerMetadata', 'mcpProtectedResourceMetadata'] as const) {
          const op = OPERATIONS.find((o) => o.id === id)!;
          expect(section).toContain(`](${BASE}${op.path}): \`${op.method} ${op.path}\``);
        }
        for (const id of ['authorize', 'registerClient', 'revokeToken'] as const) {
          const op = OPERATIONS.find((o) => o.id === id)!;
          expect(section).toContain(`: \`${op.method} ${BASE}${op.path}\``);
          expect(section).not.toContain(`](${BASE}${op.path})`);
        }
      });
    });
  }

  it('gives every guide on the sandbox the sandbox endpoint, and the production one for live requests', () => {
    const section = hostSection(renderDevelopersMarkdown(sandbox));

    for (const { id } of HOST_GUIDES) {
      const text = guide(section, id);
      const live = text.slice(text.indexOf('**Live:**'), text.indexOf('**With an API key:**'));

      expect(text, id).toContain(`${BASE}/sandbox/mcp`);
      expect(text.replace(live, ''), id).not.toMatch(new RegExp(`${BASE.replace(/\./g, '\\.')}/mcp`));
      expect(live, id).toContain(`\`${BASE}/mcp\``);
      expect(text, id).toContain(`[privacy notice](${BASE}/sandbox/privacy)`);
    }
  });

  it('renders each guide on the portal page under its anchor, every id of the page unique', () => {
    for (const ctx of [production, sandbox]) {
      const html = renderDevelopersHtml(ctx);
      const ids = [...html.matchAll(/\sid="([^"]*)"/g)].map((m) => m[1]);

      for (const { id, host } of HOST_GUIDES) {
        expect(html).toContain(`<h3 id="${id}"><a class="anchor" href="#${id}">${host}</a></h3>`);
        expect(html).toContain(`href="${BASE}${ctx.sandbox ? '/sandbox' : ''}/developers#${id}"`);
      }
      expect(new Set(ids).size).toBe(ids.length);
      expect(html).not.toContain('{#');
    }
  });

  it('points every host at the sandbox endpoint on the sandbox, where no sign-in is needed for shop requests', () => {
    const section = hostSection(renderLlmsTxt(sandbox));

    expect(section).toContain('a shop request without credentials is a sandbox request');
    expect(section).toContain(`claude mcp add --transport http merch-shop ${BASE}/sandbox/mcp`);
    expect(section).toContain(`"url": "${BASE}/sandbox/mcp"`);
    expect(section).toContain(`new URL('${BASE}/sandbox/mcp')`);
    expect(section).toContain('Bearer msa_test_…');
    expect(section).not.toMatch(new RegExp(`"url": "${BASE.replace(/\./g, '\\.')}/mcp"`));
    expect(section).toContain(`${BASE}/.well-known/oauth-authorization-server/sandbox`);
  });
});

describe('the portal key form', () => {
  const html = renderDevelopersHtml(production);

  it('posts name, e-mail and mode to the createKeyFromPortal route, every field labelled', () => {
    const form = html.slice(html.indexOf('<form'), html.indexOf('</form>'));

    expect(form).toContain(`method="post" action="${BASE}/developers/keys"`);
    expect(form).toMatch(/<label for="key-name">[^<]+<\/label>\n<input id="key-name" name="name" type="text" required minlength="2" maxlength="80"/);
    expect(form).toMatch(/<label for="key-email">[^<]+<\/label>\n<input id="key-email" name="email" type="email" required [^>]*autocomplete="email"/);
    expect(form).toMatch(/<label class="choice"><input type="radio" name="mode" value="sandbox" checked>/);
    expect(form).toMatch(/<label class="choice"><input type="radio" name="mode" value="live">/);
    expect(form).toContain('<button type="submit">');
  });

  it('posts to the sandbox route on the sandbox and sends live keys to the production portal', () => {
    const form = renderDevelopersHtml(sandbox).split('<form')[1]!.split('</form>')[0]!;

    expect(form).toContain(`action="${BASE}/sandbox/developers/keys"`);
    expect(form).not.toContain('value="live"');
    expect(form).toContain(`href="${BASE}/developers#create-a-key"`);
  });

  it('is described, not embedded, in the Markdown portal', () => {
    const markdown = renderDevelopersMarkdown(production);

    expect(markdown).not.toContain('<form');
    expect(markdown).toContain(`\`POST ${BASE}/developers/keys\``);
  });

  it('keeps the portal free of scripts', () => {
    expect(html).not.toMatch(/<script/i);
  });
});

describe('slugify', () => {
  it('keeps underscores so error codes stay their own anchors', () => {
    expect(slugify('rate_limited')).toBe('rate_limited');
    expect(slugify('Quick start')).toBe('quick-start');
    expect(slugify('OAuth 2.0 client credentials')).toBe('oauth-20-client-credentials');
  });
});

describe('heading anchors', () => {
  it('takes an anchor a heading names, without showing it in the heading or the contents', () => {
    const html = renderHtmlPage('# Page {#top}\n\n## Hosts\n\n### ChatGPT {#connect-chatgpt}\n\nText.', { markdownUrl: `${BASE}/x` });

    expect(html).toContain('<h3 id="connect-chatgpt"><a class="anchor" href="#connect-chatgpt">ChatGPT</a></h3>');
    expect(html).toContain('<title>Page</title>');
    expect(html).not.toContain('{#');
  });

  it('refuses two headings that name the same anchor', () => {
    expect(() => renderHtmlPage('## One {#same}\n\n## Two {#same}', { markdownUrl: `${BASE}/x` })).toThrow(/same/);
  });
});

describe('JSON documents', () => {
  it('service document links every operation of the specification', () => {
    const doc = buildServiceDocument(production);
    const linked = new Set(Object.values(doc.links).map((l) => l.operation_id));

    for (const op of OPERATION_IDS) expect(linked).toContain(op);
    expect(doc.links.sandbox?.href).toBe(`${BASE}/sandbox/`);
    expect(doc.links.oauth_token?.href).toBe(`${BASE}/oauth/token`);
    expect(doc.links.oauth_authorization_server_metadata?.href).toBe(`${BASE}/.well-known/oauth-authorization-server`);
    expect(doc.links.developer_portal?.href).toBe(`${BASE}/developers`);
    expect(doc.links.mcp?.href).toBe(`${BASE}/mcp`);
    expect(doc.sandbox).toBe(false);
  });

  it('service document on the sandbox says so and points API calls there', () => {
    const doc = buildServiceDocument(sandbox);

    expect(doc.environment).toBe('sandbox');
    expect(doc.sandbox).toBe(true);
    expect(doc.base_url).toBe(`${BASE}/sandbox`);
    expect(doc.links.products?.href).toBe(`${BASE}/sandbox/v1/products`);
    expect(doc.links.oauth_authorization_server_metadata?.href).toBe(`${BASE}/.well-known/oauth-authorization-server/sandbox`);
  });

  it('onboarding states the free-tier limits, credential creation, OAuth endpoints and sandbox base', () => {
    const doc = buildOnboarding(production);

    expect(doc.free_tier_limits.requests_per_minute_with_credentials).toBe(LIMITS.ratePerMinuteWithCredentials);
    expect(doc.free_tier_limits.live_shop_requests_per_day).toBe(LIMITS.liveShopRequestsPerDay);
    expect(doc.credentials.create_api_key.curl).toContain(`curl -X POST ${BASE}/v1/keys`);
    expect(doc.credentials.register_oauth_client.curl).toContain(`${BASE}/oauth/register`);
    expect(doc.oauth.token_endpoint).toBe(`${BASE}/oauth/token`);
    expect(doc.sandbox_base_url).toBe(`${BASE}/sandbox`);
    expect(doc.zero_auth_endpoints.map((e) => `${e.method} ${e.path}`)).toContain('GET /v1/products');
    expect(doc.scopes.map((s) => s.scope)).toEqual(['catalog:read', 'shops:read', 'requests:write', 'requests:read']);
  });

  it('onboarding says create_shop_request on /mcp needs requests:write, and where the MCP resource metadata is', () => {
    const doc = buildOnboarding(production);

    expect(doc.mcp).toMatchObject({ href: `${BASE}/mcp`, protected_resource_metadata: `${BASE}/.well-known/oauth-protected-resource/mcp` });
    expect(doc.mcp.credentials).toContain('requests:write');
    expect(doc.mcp.credentials).toContain('get_shop_request with requests:read');
    expect(doc.mcp.credentials).toContain('401');
    expect(buildOnboarding(sandbox).mcp.protected_resource_metadata).toBe(`${BASE}/.well-known/oauth-protected-resource/sandbox/mcp`);
  });

  it('versioning policy states spec §9', () => {
    const doc = buildVersioningPolicy(production);

    expect(doc.current_version).toBe('1');
    expect(doc.version_header).toBe('API-Version');
    expect(doc.additive_only).toBe(true);
    expect(doc.deprecation.minimum_notice_days).toBe(180);
    expect(doc.deprecation.headers).toEqual(expect.arrayContaining(['Deprecation', 'Sunset']));
  });

  it('OpenAPI lists the sandbox server first on the sandbox and production first otherwise', () => {
    expect(openApiFor(production).servers?.[0]?.url).toBe(BASE);
    expect(openApiFor(sandbox).servers?.map((s) => s.url)).toEqual([`${BASE}/sandbox`, BASE]);
  });
});

describe('fillTemplate', () => {
  it('refuses a placeholder nobody fills', () => {
    expect(() => fillTemplate('Hello {{NAME}} at {{PLACE}}', { NAME: 'x' })).toThrow(TemplateError);
  });

  it('fills every occurrence', () => {
    expect(fillTemplate('{{A}}-{{A}}', { A: 1 })).toBe('1-1');
  });
});

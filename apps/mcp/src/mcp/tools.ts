// The tools of the contracts table: the five of spec §4 "MCP endpoint" and
// get_shop_request. Each handler is thin: parse the arguments with the
// table's schema, call one service with the caller's context, and return its
// answer or its error envelope.
import {
  ErrorEnvelope,
  IDEMPOTENCY_KEY_MCP_HEADER,
  MCP_TOOLS,
  ShopRequestResult,
  mcpTool,
  z,
  type CallContext,
  type FieldProblem,
  type McpTool,
  type McpToolName,
} from '@msa/contracts';
import { toFieldProblems } from '@msa/service-kit';
import type { CallToolResult, McpServer, ServerContext, ToolAnnotations } from '@modelcontextprotocol/server';
import { mcpResourceMetadataUrl } from '../domain/tool-authorization.js';
import { DEFAULT_TOOL_DEADLINE_MS, type McpDeps } from './deps.js';
import { mcpParamHeaderName, mcpParamValue } from './param-headers.js';
import { TOOL_DESCRIPTIONS } from './tool-descriptions.js';
import { advertisedInput, advertisedOutput } from './tool-schema.js';
import { toolViewMeta } from './views.js';
import { asEnvelope, envelopeOfFailure, toolFailure, toolSuccess, type EnvelopeFactory } from './tool-result.js';

type Service = 'catalog' | 'shops' | 'requests';

/** How the mcp service serves one tool: the service it calls, and the call. */
interface ToolHandler {
  service: Service;
  /** `headers`: the HTTP request's, for arguments a client mirrors into `Mcp-Param-*` headers. */
  call(args: unknown, headers: Headers | undefined): Promise<CallToolResult>;
}

/** Parses tool arguments; a problem becomes the `validation_failed` envelope with one field per issue. */
function parseArgs<S extends z.ZodType>(schema: S, args: unknown, envelope: EnvelopeFactory): { ok: true; value: z.infer<S> } | { ok: false; result: CallToolResult } {
  const parsed = schema.safeParse(args ?? {});
  if (parsed.success) return { ok: true, value: parsed.data };
  return {
    ok: false,
    result: toolFailure(
      envelope('validation_failed', 'The tool arguments are invalid; see error.fields.', { fields: toFieldProblems(parsed.error) }),
    ),
  };
}

// The table sets all four hints of every tool; the directories refuse a tool without them.
function annotationsOf(tool: McpTool): ToolAnnotations {
  return { title: tool.title, ...tool.hints };
}

/** One handler per tool of the table; a tool without one is a type error. */
function createHandlers(deps: McpDeps, ctx: CallContext): Record<McpToolName, ToolHandler> {
  const { catalog, shops, requests, envelope, urls } = deps;

  /** A handler that parses the arguments with the tool's schema and answers with what `fetch` returns. */
  function reading<S extends z.ZodType>(service: Service, args: S, fetch: (value: z.output<S>) => Promise<Record<string, unknown>>): ToolHandler {
    return {
      service,
      async call(raw) {
        const parsed = parseArgs(args, raw, envelope);
        if (!parsed.ok) return parsed.result;
        return toolSuccess(await fetch(parsed.value));
      },
    };
  }

  return {
    search_products: reading('catalog', mcpTool('search_products').args, (args) => catalog.listProducts(ctx, args)),
    get_product: reading('catalog', mcpTool('get_product').args, (args) => catalog.getProduct(ctx, args.handle)),
    get_pricing: reading('catalog', mcpTool('get_pricing').args, () => catalog.getPricing(ctx)),
    list_public_shops: reading('shops', mcpTool('list_public_shops').args, (args) => shops.listShops(ctx, args.category)),
    // The requests service validates the body again and resolves the products, so both paths answer alike.
    get_quote: reading('requests', mcpTool('get_quote').args, (args) => requests.createQuote(ctx, args)),
    // The requests service applies the REST rules: the owner reads it on
    // either path, anyone else gets 403 forbidden, an unknown id 404.
    get_shop_request: reading('requests', mcpTool('get_shop_request').args, (args) => requests.getShopRequest(ctx, args.id)),
    create_shop_request: {
      service: 'requests',
      async call(args, headers) {
        // Only the wrapper is checked here; the requests service validates the
        // body itself, including product handles, so both paths answer alike.
        if (!args || typeof args !== 'object' || Array.isArray(args)) {
          return toolFailure(envelope('validation_failed', 'The tool arguments must be an object.', { fields: [{ field: '(arguments)', message: 'expected an object' }] }));
        }
        const { idempotency_key: argument, ...body } = args as Record<string, unknown>;
        const key = idempotencyKeyOf(argument, headers);
        if (!key.ok) return toolFailure(envelope('validation_failed', 'The idempotency key is invalid; see error.fields.', { fields: [key.problem] }));
        const keyParsed = parseArgs(mcpTool('create_shop_request').args.pick({ idempotency_key: true }), { idempotency_key: key.value }, envelope);
        if (!keyParsed.ok) return keyParsed.result;

        // The route let an anonymous call through only on the sandbox; the
        // requests service refuses one anywhere else rather than guessing.
        const res = await requests.createShopRequest(ctx, body, keyParsed.value.idempotency_key);
        if (res.status !== 201 && res.status !== 200) {
          const env = asEnvelope(res.body) ?? envelope('upstream_unavailable', `The requests service answered ${res.status}.`);
          const retryAfter = res.headers.get('retry-after');
          if (retryAfter && env.error.status === 429) {
            env.error.hint = `${env.error.hint ?? ''} Retry after ${retryAfter} seconds.`.trim();
          }
          return toolFailure(env);
        }
        const result = ShopRequestResult.parse(res.body);
        return ctx.principal ? toolSuccess(result) : anonymousResult(result, urls.root);
      },
    },
  };
}

/** `views`: the caller's host renders MCP Apps views, so tools that have one name it. */
export function registerTools(server: McpServer, deps: McpDeps, ctx: CallContext, views = false): void {
  const handlers = createHandlers(deps, ctx);

  const deadlineMs = deps.toolDeadlineMs ?? DEFAULT_TOOL_DEADLINE_MS;

  /** The answer of a call past the deadline: a tool error the model can act on, while the call itself may still finish. */
  function late(tool: McpToolName, service: Service): CallToolResult {
    const seconds = Math.round(deadlineMs / 100) / 10;
    const hint =
      tool === 'create_shop_request'
        ? 'The shop request may still be stored: call create_shop_request again with the same idempotency_key, which answers with that request instead of making a second one.'
        : 'Retry in a moment; this tool is read-only, so retrying is safe.';
    return toolFailure(deps.envelope('upstream_timeout', `${tool} did not finish within ${seconds} s: the ${service} service is slow.`, { hint }));
  }

  /** Runs a call within the deadline and turns any failure into an error result; counts outcomes. */
  async function run(tool: McpToolName, { service, call }: ToolHandler, args: unknown, extra: ServerContext): Promise<CallToolResult> {
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<null>((resolve) => {
      timer = setTimeout(() => resolve(null), deadlineMs);
    });
    try {
      // The race also handles a rejection of the call that arrives after the deadline.
      const result = await Promise.race([call(args, extra.http?.req?.headers), deadline]);
      if (result === null) {
        deps.toolCalls?.inc({ tool, outcome: 'error' });
        deps.logger.warn({ tool, service, deadlineMs }, 'tool call passed its deadline');
        return late(tool, service);
      }
      deps.toolCalls?.inc({ tool, outcome: result.isError ? 'error' : 'ok' });
      return result;
    } catch (err) {
      deps.toolCalls?.inc({ tool, outcome: 'error' });
      const env = envelopeOfFailure(err, deps.envelope, service);
      if (env.error.status >= 500) deps.logger.warn({ err, tool }, 'tool call failed upstream');
      return toolFailure(withToolHint(tool, env));
    } finally {
      clearTimeout(timer);
    }
  }

  for (const tool of MCP_TOOLS) {
    const meta = views ? toolViewMeta(tool.name) : undefined;
    server.registerTool(
      tool.name,
      {
        title: tool.title,
        description: TOOL_DESCRIPTIONS[tool.name],
        inputSchema: advertisedInput(tool.args),
        outputSchema: advertisedOutput(z.union([tool.output, ErrorEnvelope])),
        annotations: annotationsOf(tool),
        ...(meta ? { _meta: meta } : {}),
      },
      (args: unknown, extra: ServerContext) => run(tool.name, handlers[tool.name], args, extra),
    );
  }
}


/**
 * The result of a shop request made without credentials, which only the
 * sandbox takes. The data keeps the contracts shape (so it still validates
 * against the output schema); the first text block and next_steps say it
 * was never sent and name both ways to authenticate on /mcp.
 */
export function anonymousResult(result: ShopRequestResult, root: string): CallToolResult {
  const stored = `Stored on the sandbox as ${result.id} (this is the sandbox endpoint): validated and stored, never sent to the operator.`;
  const howTo =
    `To send it for real, call create_shop_request on ${root}/mcp, which asks for authorization: either authorize as an OAuth client (protected resource metadata at ${mcpResourceMetadataUrl(root, false)}, token from ${root}/oauth/token) ` +
    `or send an API key (POST ${root}/v1/keys with {"name", "email", "mode": "live"}, then the header Authorization: Bearer <API_KEY> on ${root}/mcp). ` +
    'Confirm the details with the person you act for, then call create_shop_request again with a new idempotency_key.';
  const data: ShopRequestResult = { ...result, next_steps: `${stored} ${howTo}` };
  const structured = data as unknown as Record<string, unknown>;
  return {
    content: [
      { type: 'text', text: `${stored}\n${howTo}` },
      { type: 'text', text: JSON.stringify(structured) },
    ],
    structuredContent: structured,
  };
}

const IDEMPOTENCY_HEADER = mcpParamHeaderName(IDEMPOTENCY_KEY_MCP_HEADER);

/**
 * The idempotency key of a create_shop_request call: the argument, or the
 * `Mcp-Param-Idempotency-Key` header a 2026-07-28 client mirrors it into
 * (the argument's `x-mcp-header`). Either alone is honoured; both must agree.
 * On a 2026-07-28 call the SDK has already refused an argument without its
 * header, or a header that disagrees; a 2025 call gets the same rule here.
 */
function idempotencyKeyOf(argument: unknown, headers: Headers | undefined): { ok: true; value: unknown } | { ok: false; problem: FieldProblem } {
  const header = mcpParamValue(headers, IDEMPOTENCY_KEY_MCP_HEADER);
  if (header.kind === 'invalid') {
    return { ok: false, problem: { field: 'idempotency_key', message: `the ${IDEMPOTENCY_HEADER} header is not valid =?base64?…?= of UTF-8 text` } };
  }
  if (header.kind === 'absent') return { ok: true, value: argument };
  // A wrong type is the schema's to report.
  if (argument === undefined || typeof argument !== 'string') return { ok: true, value: argument ?? header.value };
  if (argument !== header.value) {
    return { ok: false, problem: { field: 'idempotency_key', message: `differs from the ${IDEMPOTENCY_HEADER} header; send one value, in the argument, the header or both` } };
  }
  return { ok: true, value: argument };
}

const READ_ONLY_TOOLS: ReadonlySet<string> = new Set(MCP_TOOLS.filter((t) => t.readOnly).map((t) => t.name));

/** Tool-specific advice on top of the API's hint, where a model needs more than the REST text. */
function withToolHint(tool: string, env: ErrorEnvelope): ErrorEnvelope {
  const { code, status } = env.error;
  if (code === 'product_not_found') {
    return { error: { ...env.error, hint: 'Call search_products with other words to find the right handle, and ask the person which match they mean; never invent a handle.' } };
  }
  if (code === 'shop_request_not_found') {
    return { error: { ...env.error, hint: 'Use the id that create_shop_request returned (req_ and 16 hex digits); never guess one.' } };
  }
  if (tool === 'get_shop_request' && code === 'forbidden') {
    return {
      error: {
        ...env.error,
        hint: 'Only the credentials that created a shop request can read it: connect with them. One made without credentials on the sandbox endpoint belongs to the address it came from.',
      },
    };
  }
  if (READ_ONLY_TOOLS.has(tool) && status >= 500) {
    return { error: { ...env.error, hint: `${env.error.hint ?? 'Retry in a moment.'} This tool is read-only, so retrying is safe.` } };
  }
  return env;
}

import { OPERATIONS, buildOpenApiDocument, type OpenApiDocument, type OperationDef } from '@msa/contracts';
import { docUrls, normalizeBaseUrl, type DocContext } from './context.js';

const cache = new Map<string, OpenApiDocument>();

/**
 * The OpenAPI document for one reader. Generating it walks every schema, so
 * each (base URL, sandbox) pair is built once. On the sandbox the sandbox
 * server comes first, so tools that pick `servers[0]` stay on the sandbox.
 */
export function openApiFor(ctx: DocContext, table: readonly OperationDef[] = OPERATIONS): OpenApiDocument {
  const key = `${normalizeBaseUrl(ctx.publicBaseUrl)}|${ctx.sandbox}`;
  // Only the real table is cached: a test's own table must not be served from, or into, the cache.
  let doc = table === OPERATIONS ? cache.get(key) : undefined;
  if (!doc) {
    const built = buildOpenApiDocument({ publicBaseUrl: normalizeBaseUrl(ctx.publicBaseUrl) }, table);
    if (ctx.sandbox && built.servers) {
      const sandboxUrl = docUrls(ctx).sandbox;
      built.servers = [...built.servers].sort((a, b) => Number(b.url === sandboxUrl) - Number(a.url === sandboxUrl));
    }
    doc = built;
    if (table === OPERATIONS) cache.set(key, doc);
  }
  return doc;
}

const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

interface OperationLike {
  operationId?: string;
  summary?: string;
  security?: Record<string, string[]>[];
}

function authOf(op: OperationLike): string {
  const sec = op.security;
  if (!sec || sec.length === 0) return 'none';
  if (sec.some((s) => Object.keys(s).length === 0)) return 'optional';
  const scopes = [...new Set(sec.flatMap((s) => Object.values(s).flat()))];
  return scopes.length ? `required (${scopes.map((s) => `\`${s}\``).join(', ')})` : 'required';
}

/** `/openapi.json` for Markdown readers: the operation list, pointing at the JSON for schemas. */
export function renderOpenApiMarkdown(ctx: DocContext, table: readonly OperationDef[] = OPERATIONS): string {
  const doc = openApiFor(ctx, table);
  const u = docUrls(ctx);
  const rows: string[] = [];
  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    for (const method of METHODS) {
      const op = (item as Record<string, OperationLike | undefined>)[method];
      if (!op) continue;
      rows.push(`| \`${op.operationId ?? ''}\` | \`${method.toUpperCase()} ${path}\` | ${op.summary ?? ''} | ${authOf(op)} |`);
    }
  }
  const servers = (doc.servers ?? []).map((s) => `- ${s.url}${s.description ? `: ${s.description}` : ''}`).join('\n');
  return `# ${doc.info.title}: OpenAPI ${doc.openapi} (summary)

The full machine-readable document, with every schema, example and error response, is JSON at ${u.openapi} (send \`Accept: application/json\` or no Accept header).

## Servers

${servers}

## Operations

| operationId | Method and path | Summary | Credentials |
|---|---|---|---|
${rows.join('\n')}

Every error is one JSON envelope, \`error\` with \`code\`, \`message\`, \`status\` and optional \`hint\`, \`docs\`, \`openapi\`, \`fields\`; the codes are listed at ${u.developers}#error-codes.
`;
}

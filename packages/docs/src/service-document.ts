import { API_VERSION, OPERATIONS, PRODUCT_NAME, type OperationAuth, type OperationDef } from '@msa/contracts';
import { docUrls, operationHref, type DocContext } from './context.js';
import { SERVICE_DESCRIPTION } from './facts.js';
import { MCP_PROTOCOL_VERSIONS, MCP_RESOURCES, MCP_TOOLS } from './mcp-surface.js';

export type LinkAuth = 'none' | 'optional' | 'required';

export interface ServiceLink {
  href: string;
  method: string;
  title: string;
  /** Media type of the answer. */
  type: string;
  auth: LinkAuth;
  operation_id?: string;
  scope?: string;
  /** True when `href` holds a `{placeholder}` (RFC 6570). */
  templated?: boolean;
}

export interface ServiceDocument {
  name: string;
  description: string;
  api_version: string;
  environment: 'production' | 'sandbox';
  sandbox: boolean;
  base_url: string;
  production_base_url: string;
  sandbox_base_url: string;
  markdown: string;
  links: Record<string, ServiceLink>;
  mcp: {
    href: string;
    transport: string;
    protocol_versions: string[];
    tools: string[];
    resources: { name: string; uri: string; mime_type: string }[];
  };
}

export const LINK_AUTH: Record<OperationAuth, LinkAuth> = { none: 'none', open: 'optional', required: 'required' };

/** The media type an operation answers with first (its documents' default form). */
export function answerType(op: OperationDef): string {
  const success = Object.values(op.responses).find((r) => r.content);
  return Object.keys(success?.content ?? {})[0] ?? 'application/json';
}

/** The entry point: a link to every resource of the table, for the reader's environment. */
export function buildServiceDocument(ctx: DocContext, table: readonly OperationDef[] = OPERATIONS): ServiceDocument {
  const u = docUrls(ctx);
  const links: Record<string, ServiceLink> = {};
  for (const op of table) {
    if (!op.link) continue;
    links[op.link.rel] = {
      href: operationHref(u, op),
      method: op.method,
      title: op.link.title ?? op.summary,
      type: answerType(op),
      auth: LINK_AUTH[op.auth],
      ...(op.kind === 'operation' ? { operation_id: op.id } : {}),
      ...(op.scope ? { scope: op.scope } : {}),
      ...(op.path.includes('{') ? { templated: true } : {}),
    };
  }
  const json = 'application/json';
  links.production = { href: `${u.production}/`, method: 'GET', title: 'Production service document', type: json, auth: 'none' };
  links.sandbox = { href: `${u.sandbox}/`, method: 'GET', title: 'Sandbox service document: every endpoint, nothing is sent', type: json, auth: 'none' };

  return {
    name: PRODUCT_NAME,
    description: SERVICE_DESCRIPTION,
    api_version: API_VERSION,
    environment: ctx.sandbox ? 'sandbox' : 'production',
    sandbox: ctx.sandbox,
    base_url: u.base,
    production_base_url: u.production,
    sandbox_base_url: u.sandbox,
    markdown: 'Every documentation URL answers Accept: text/markdown with Markdown.',
    links,
    mcp: {
      href: u.mcp,
      transport: 'streamable-http',
      protocol_versions: [...MCP_PROTOCOL_VERSIONS],
      tools: MCP_TOOLS.map((t) => t.name),
      resources: MCP_RESOURCES.map((r) => ({ name: r.name, uri: r.uri, mime_type: r.mimeType })),
    },
  };
}

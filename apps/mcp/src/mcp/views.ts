// The MCP Apps views as `ui://` resources, and the link from a tool to the
// view that renders its results (`_meta.ui.resourceUri`, the nested key; the
// flat `ui/resourceUri` is deprecated). Offered only to hosts that advertised
// the extension (ui-extension.ts).
import { VIEW_MIME_TYPE, VIEWS, viewHtml, viewOfTool } from '@msa/views';
import type { McpServer, ReadResourceResult } from '@modelcontextprotocol/server';

/**
 * Everything a view needs is inline, so it asks for no origin at all; hosts
 * build the iframe's CSP from this. No `domain`: the host's default sandbox
 * origin is right for a view that talks to nobody.
 */
export const VIEW_CSP = { connectDomains: [], resourceDomains: [], frameDomains: [], baseUriDomains: [] };

export function registerViews(server: McpServer): void {
  for (const view of VIEWS) {
    server.registerResource(
      view.name,
      view.uri,
      { title: view.title, description: view.description, mimeType: VIEW_MIME_TYPE },
      async (uri): Promise<ReadResourceResult> => ({
        contents: [{ uri: uri.href, mimeType: VIEW_MIME_TYPE, text: viewHtml(view.name), _meta: { ui: { csp: VIEW_CSP } } }],
      }),
    );
  }
}

/** The `_meta` of a tool that has a view, for a host that renders them. */
export function toolViewMeta(tool: string): { ui: { resourceUri: string } } | undefined {
  const view = viewOfTool(tool);
  return view ? { ui: { resourceUri: view.uri } } : undefined;
}

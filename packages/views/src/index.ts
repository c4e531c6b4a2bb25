// The MCP Apps views of the merch-shop tools: one self-contained HTML
// document per view (script, styles and garment drawings inline), built by
// scripts/build-views.mjs into dist/views/. The mcp service serves them as
// `ui://` resources and names them in the tools' `_meta.ui.resourceUri`.
import { readFileSync } from 'node:fs';

/** The MIME type of an MCP Apps view (SEP-1865): no space before the profile. */
export const VIEW_MIME_TYPE = 'text/html;profile=mcp-app';

export const VIEW_NAMES = ['product-view', 'quote-view', 'request-view'] as const;
export type ViewName = (typeof VIEW_NAMES)[number];

export interface ViewSpec {
  name: ViewName;
  uri: string;
  title: string;
  description: string;
  /** The tools whose results this view renders. */
  tools: readonly string[];
}

export const VIEWS: readonly ViewSpec[] = [
  {
    name: 'product-view',
    uri: 'ui://merch-shop/product-view.html',
    title: 'Products',
    description: 'Product cards: garment in the chosen colour, sizes, decoration techniques and volume prices, with buttons to get a quote and to request a shop.',
    tools: ['search_products', 'get_product'],
  },
  {
    name: 'quote-view',
    uri: 'ui://merch-shop/quote-view.html',
    title: 'Quote',
    description: 'A quote: its lines, net, VAT and gross totals, validity and warnings, with a button to request a shop based on it.',
    tools: ['get_quote'],
  },
  {
    name: 'request-view',
    uri: 'ui://merch-shop/request-view.html',
    title: 'Shop request',
    description: 'A shop request: what was sent, its id and status, and when the team answers.',
    tools: ['create_shop_request', 'get_shop_request'],
  },
];

const cache = new Map<ViewName, string>();

/** The HTML document of a view, read once from the build output. */
export function viewHtml(name: ViewName): string {
  let html = cache.get(name);
  if (html === undefined) {
    html = readFileSync(new URL(`./views/${name}.html`, import.meta.url), 'utf8');
    cache.set(name, html);
  }
  return html;
}

/** The view that renders a tool's results, if any. */
export function viewOfTool(tool: string): ViewSpec | undefined {
  return VIEWS.find((v) => v.tools.includes(tool));
}

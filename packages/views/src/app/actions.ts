// What a click does: tool calls through the host (`tools/call` over the
// bridge), never straight to the server; the host decides, signs in, or refuses.
import type { OrganizationType, Product, Quote, ShopRequestResult } from '@msa/contracts';
import { RpcError, type Bridge } from './bridge.js';
import type { RequestDraft } from './render-forms.js';
import { errorScreen, lineColors, screenOf, type Screen, type ToolResult } from './screens.js';

function callTool(bridge: Bridge, name: string, args: Record<string, unknown>): Promise<ToolResult> {
  return bridge.request<ToolResult>('tools/call', { name, arguments: args });
}

/** A fresh idempotency key per submit; crypto.randomUUID needs a secure context, which a sandbox may not be. */
function idempotencyKey(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return `view-${Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('')}`;
}

export async function requestQuote(bridge: Bridge, product: Product, color: string | undefined, type: OrganizationType, quantity: number): Promise<Screen> {
  const args = { organization_type: type, lines: [{ product: product.handle, quantity, ...(color ? { colors: [color] } : {}) }] };
  const result = await callTool(bridge, 'get_quote', args);
  return screenOf(result, args);
}

/** The products of a shop request: the quote's lines with their colours, or the one product card. */
export function requestedProducts(source: { quote: Quote; colors: string[][] } | { product: Product; color: string | undefined }) {
  if ('quote' in source) {
    return source.quote.lines.map((l, i) => ({ product: l.handle, decoration: l.decoration, ...(source.colors[i]?.length ? { colors: source.colors[i] } : {}) }));
  }
  return [{ product: source.product.handle, ...(source.color ? { colors: [source.color] } : {}) }];
}

export interface Submitted {
  screen: Screen;
  /** A message for the form instead of a new screen (sign-in needed, a refused field). */
  formStatus?: string;
}

/** Creates the shop request, then reads it back on the same connection for the request view. */
export async function submitRequest(bridge: Bridge, draft: RequestDraft, products: unknown[], quoteId: string | undefined, signIn: string): Promise<Submitted> {
  const { name, type, contact_name, email, shop_name } = draft;
  const args = {
    organization: { name, type, contact_name, email },
    shop_name,
    products,
    ...(quoteId ? { quote_id: quoteId } : {}),
    idempotency_key: idempotencyKey(),
  };
  let created: ToolResult;
  try {
    created = await callTool(bridge, 'create_shop_request', args);
  } catch (err) {
    // The host answers an unauthorized call with an error and starts sign-in.
    return { screen: { kind: 'waiting' }, formStatus: err instanceof RpcError || err instanceof Error ? `${signIn} (${err.message})` : signIn };
  }
  const first = screenOf(created, args);
  if (first.kind !== 'request') return { screen: first, formStatus: first.kind === 'error' ? [first.message, first.hint].filter(Boolean).join(' ') : '' };
  const read = await callTool(bridge, 'get_shop_request', { id: first.request.id }).catch(() => created);
  const again = screenOf(read, {});
  return { screen: again.kind === 'request' ? again : first };
}

export function quoteScreen(quote: Quote, input: Record<string, unknown>): Screen {
  return { kind: 'quote', quote, colors: lineColors(input), formOpen: false };
}

export function failure(err: unknown): Screen {
  return errorScreen(undefined, err instanceof Error ? err.message : String(err));
}

export type { ShopRequestResult };

// What a view shows, decided from a tool result's structuredContent: the
// shapes are the contracts' (ProductList, Product, Quote, ShopRequestResult,
// the error envelope), so one script serves all three views.
import type { Product, ProductList, Quote, ShopRequestResult } from '@msa/contracts';
import type { ProductsState } from './render-products.js';

export type Screen =
  | { kind: 'waiting' }
  | ({ kind: 'products' } & ProductsState)
  | { kind: 'quote'; quote: Quote; colors: string[][]; formOpen: boolean }
  | { kind: 'request'; request: ShopRequestResult }
  | { kind: 'error'; message: string; hint: string };

export interface ToolResult {
  content?: Array<{ type: string; text?: string }>;
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The colours each line of the tool input asked for (get_quote's `lines[].colors`). */
export function lineColors(input: Record<string, unknown>): string[][] {
  const lines = Array.isArray(input.lines) ? input.lines : [];
  return lines.map((l) => (isObject(l) && Array.isArray(l.colors) ? l.colors.filter((c): c is string => typeof c === 'string') : []));
}

export function errorScreen(data: Record<string, unknown> | undefined, fallback: string): Screen {
  const error = isObject(data?.error) ? data.error : {};
  return {
    kind: 'error',
    message: typeof error.message === 'string' ? error.message : fallback,
    hint: typeof error.hint === 'string' ? error.hint : '',
  };
}

/** The screen for a tool result; `input` is the call's arguments. */
export function screenOf(result: ToolResult, input: Record<string, unknown>): Screen {
  const data = result.structuredContent;
  const text = result.content?.find((c) => c.type === 'text')?.text ?? '';
  if (result.isError || !data) return errorScreen(data, text);
  if (Array.isArray(data.products) && typeof data.total === 'number') {
    return { kind: 'products', products: (data as unknown as ProductList).products, colors: {}, open: null };
  }
  if (typeof data.handle === 'string' && typeof data.title === 'string') {
    return { kind: 'products', products: [data as unknown as Product], colors: {}, open: null };
  }
  if (typeof data.quote_id === 'string' && Array.isArray(data.lines)) {
    return { kind: 'quote', quote: data as unknown as Quote, colors: lineColors(input), formOpen: false };
  }
  if (typeof data.id === 'string' && data.id.startsWith('req_')) return { kind: 'request', request: data as unknown as ShopRequestResult };
  return errorScreen(undefined, text);
}

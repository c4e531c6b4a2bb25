// Typed clients for calls between services. Each call carries the caller's
// context, signed by the calling service, so the callee applies the same
// ownership and sandbox rules as for a call from the gateway.
import { Product, ProductList, type ProductListQuery, Pricing } from './catalog.js';
import { ShopList } from './shops.js';
import { ShopRequestResult } from './shop-requests.js';
import { Quote } from './quotes.js';
import { GrantStatusResponse, IntrospectionResponse } from './identity.js';
import { PersonalShopRequestErasure, PersonalShopRequests, type PersonalShopRequestQueryInput } from './privacy.js';
import { ErrorEnvelope } from './errors.js';
import { INTERNAL_AUTH_HEADER, type CallContext, type ServiceName } from './internal.js';
import type { z } from './zod.js';

/** Signs the internal-auth token for one call to `audience`. */
export type InternalSigner = (audience: ServiceName, ctx: CallContext) => string;

export interface ServiceClientOptions {
  baseUrl: string;
  audience: ServiceName;
  sign: InternalSigner;
  timeoutMs?: number;
}

export interface ServiceResponse<T> {
  status: number;
  headers: Headers;
  body: T;
}

/** A non-2xx answer from another service, with its error envelope when it sent one. */
export class ServiceCallError extends Error {
  constructor(
    readonly status: number,
    readonly envelope: ErrorEnvelope | null,
    message: string,
  ) {
    super(message);
    this.name = 'ServiceCallError';
  }
}

export interface RequestOptions {
  query?: Record<string, string | number | undefined>;
  body?: unknown;
  headers?: Record<string, string>;
}

export interface ServiceClient {
  /** Sends a call and returns status, headers and parsed JSON body, whatever the status. */
  send(method: string, path: string, ctx: CallContext, opts?: RequestOptions): Promise<ServiceResponse<unknown>>;
  /** Sends a call, throws ServiceCallError on non-2xx, parses the body with `schema`. */
  call<S extends z.ZodType>(schema: S, method: string, path: string, ctx: CallContext, opts?: RequestOptions): Promise<z.infer<S>>;
}

export function createServiceClient({ baseUrl, audience, sign, timeoutMs = 10_000 }: ServiceClientOptions): ServiceClient {
  async function send(method: string, path: string, ctx: CallContext, opts: RequestOptions = {}): Promise<ServiceResponse<unknown>> {
    const url = new URL(path, baseUrl);
    for (const [k, v] of Object.entries(opts.query ?? {})) if (v !== undefined) url.searchParams.set(k, String(v));
    const headers: Record<string, string> = {
      accept: 'application/json',
      [INTERNAL_AUTH_HEADER]: sign(audience, ctx),
      'x-request-id': ctx.request_id,
      ...(ctx.traceparent ? { traceparent: ctx.traceparent } : {}),
      ...opts.headers,
    };
    let body: string | undefined;
    if (opts.body !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(opts.body);
    }
    const res = await fetch(url, { method, headers, body, signal: AbortSignal.timeout(timeoutMs) });
    const text = await res.text();
    let json: unknown = null;
    if (text) {
      try {
        json = JSON.parse(text);
      } catch {
        json = null;
      }
    }
    return { status: res.status, headers: res.headers, body: json };
  }

  async function call<S extends z.ZodType>(
    schema: S,
    method: string,
    path: string,
    ctx: CallContext,
    opts: RequestOptions = {},
  ): Promise<z.infer<S>> {
    const res = await send(method, path, ctx, opts);
    if (res.status < 200 || res.status >= 300) {
      const env = ErrorEnvelope.safeParse(res.body);
      throw new ServiceCallError(
        res.status,
        env.success ? env.data : null,
        env.success ? env.data.error.message : `${audience} answered ${res.status}`,
      );
    }
    return schema.parse(res.body);
  }

  return { send, call };
}

export function createCatalogClient(opts: Omit<ServiceClientOptions, 'audience'>) {
  const c = createServiceClient({ ...opts, audience: 'catalog' });
  return {
    raw: c,
    listProducts: (ctx: CallContext, query: Partial<ProductListQuery> = {}) =>
      c.call(ProductList, 'GET', '/v1/products', ctx, { query }),
    /** Every product, paging through the list. */
    async listAllProducts(ctx: CallContext): Promise<Product[]> {
      const all: Product[] = [];
      for (let offset = 0; ; offset += 250) {
        const page = await c.call(ProductList, 'GET', '/v1/products', ctx, { query: { limit: 250, offset } });
        all.push(...page.products);
        if (page.products.length === 0 || all.length >= page.total) return all;
      }
    },
    getProduct: (ctx: CallContext, handle: string) =>
      c.call(Product, 'GET', `/v1/products/${encodeURIComponent(handle)}`, ctx),
    getPricing: (ctx: CallContext) => c.call(Pricing, 'GET', '/v1/pricing', ctx),
  };
}
export type CatalogClient = ReturnType<typeof createCatalogClient>;

export function createShopsClient(opts: Omit<ServiceClientOptions, 'audience'>) {
  const c = createServiceClient({ ...opts, audience: 'shops' });
  return {
    raw: c,
    listShops: (ctx: CallContext, category?: string) => c.call(ShopList, 'GET', '/v1/shops', ctx, { query: { category } }),
  };
}
export type ShopsClient = ReturnType<typeof createShopsClient>;

export function createRequestsClient(opts: Omit<ServiceClientOptions, 'audience'>) {
  const c = createServiceClient({ ...opts, audience: 'requests' });
  return {
    raw: c,
    createShopRequest: (ctx: CallContext, body: unknown, idempotencyKey?: string) =>
      c.send('POST', '/v1/shop-requests', ctx, {
        body,
        headers: idempotencyKey ? { 'idempotency-key': idempotencyKey } : {},
      }),
    getShopRequest: (ctx: CallContext, id: string) =>
      c.call(ShopRequestResult, 'GET', `/v1/shop-requests/${encodeURIComponent(id)}`, ctx),
    /** The body goes as given: the requests service validates it and answers a 422 with every problem. */
    createQuote: (ctx: CallContext, body: unknown) => c.call(Quote, 'POST', '/v1/quotes', ctx, { body }),
    getQuote: (ctx: CallContext, id: string) => c.call(Quote, 'GET', `/v1/quotes/${encodeURIComponent(id)}`, ctx),
    /** Internal: the stored shop requests of an address or principals (a person's right of access). */
    findPersonalShopRequests: (ctx: CallContext, query: PersonalShopRequestQueryInput) =>
      c.call(PersonalShopRequests, 'POST', '/internal/privacy/shop-requests/find', ctx, { body: query }),
    /** Internal: erases their personal data, the list entries' copies and undelivered intake jobs. */
    erasePersonalShopRequests: (ctx: CallContext, query: PersonalShopRequestQueryInput) =>
      c.call(PersonalShopRequestErasure, 'POST', '/internal/privacy/shop-requests/erase', ctx, { body: query }),
  };
}
export type RequestsClient = ReturnType<typeof createRequestsClient>;

export function createIdentityClient(opts: Omit<ServiceClientOptions, 'audience'>) {
  const c = createServiceClient({ ...opts, audience: 'identity' });
  return {
    raw: c,
    introspect: (ctx: CallContext, apiKey: string) =>
      c.call(IntrospectionResponse, 'POST', '/internal/introspect', ctx, { body: { api_key: apiKey } }),
    grantStatus: (ctx: CallContext, grant: string) =>
      c.call(GrantStatusResponse, 'POST', '/internal/grant-status', ctx, { body: { grant } }),
  };
}
export type IdentityClient = ReturnType<typeof createIdentityClient>;

import { BOUNDS } from './common.js';
import { z } from './zod.js';

/**
 * Every error code the API answers with, as data: its HTTP status, a hint on
 * how to resolve it, and the developer-portal anchor its `docs` link points at.
 */
export const ERROR_CODES = {
  invalid_request: { status: 400, title: 'Invalid request', hint: 'Check the parameters against the OpenAPI document; `error.fields` names each problem.' },
  invalid_json: { status: 400, title: 'Malformed JSON', hint: 'Send a syntactically valid JSON body with `Content-Type: application/json`.' },
  invalid_scope: { status: 400, title: 'Invalid scope', hint: 'Ask only for scopes granted to the client (space-separated subset).' },
  unsupported_grant_type: { status: 400, title: 'Unsupported grant type', hint: 'Use `client_credentials`, `authorization_code` or `refresh_token`.' },
  invalid_grant: { status: 400, title: 'Invalid grant', hint: 'The code or refresh token is expired, used, revoked, or was issued to another client, redirect URI or PKCE verifier; start the authorization again.' },
  unsupported_response_type: { status: 400, title: 'Unsupported response type', hint: 'Send `response_type=code`: the authorization code flow with PKCE is the only one offered.' },
  unsupported_token_type: { status: 400, title: 'Unsupported token type', hint: 'Revoke the refresh token or an access token of the authorization code grant; a client-credentials token cannot be revoked, it expires within the hour.' },
  invalid_target: { status: 400, title: 'Invalid resource', hint: 'Send `resource` as this API (`{base}`) or its MCP endpoint (`{base}/mcp`), sandbox forms included, or leave it out.' },
  invalid_client_metadata: { status: 400, title: 'Invalid client metadata', hint: 'Send `client_name`, at least one e-mail in `contacts`, and only the `client_credentials` grant.' },
  unauthorized: { status: 401, title: 'Missing or invalid credentials', hint: 'Send `Authorization: Bearer <API_KEY>` (or an access token). Create free credentials with POST /v1/keys.' },
  invalid_client: { status: 401, title: 'Client authentication failed', hint: 'Check `client_id` and `client_secret` (body or HTTP Basic).' },
  insufficient_scope: { status: 403, title: 'Scope missing', hint: 'Create credentials with the scope this operation needs, or ask for it in the token request.' },
  forbidden: { status: 403, title: 'Forbidden', hint: 'This resource belongs to other credentials; use the credentials that created it.' },
  origin_not_allowed: { status: 403, title: 'Origin not allowed', hint: 'Call the MCP endpoint from an allowed origin or without an Origin header.' },
  not_found: { status: 404, title: 'Not found', hint: 'GET / lists every resource of this API.' },
  product_not_found: { status: 404, title: 'Product not found', hint: 'GET /v1/products lists every handle.' },
  shop_request_not_found: { status: 404, title: 'Shop request not found', hint: 'Use the `id` returned by POST /v1/shop-requests.' },
  quote_not_found: { status: 404, title: 'Quote not found', hint: 'Use the `quote_id` returned by POST /v1/quotes; an expired quote is gone, so ask for a new one.' },
  method_not_allowed: { status: 405, title: 'Method not allowed', hint: 'The `Allow` header lists the methods this path accepts.' },
  not_acceptable: { status: 406, title: 'Not acceptable', hint: 'Accept `application/json` (or `text/markdown` on documentation URLs).' },
  request_timeout: { status: 408, title: 'Request timeout', hint: 'Send the whole request without pausing; the connection was closed, so open a new one and retry.' },
  idempotency_key_reused: { status: 409, title: 'Idempotency key reused', hint: 'An `Idempotency-Key` belongs to one request body; use a new key for a different request.' },
  idempotency_key_in_use: { status: 409, title: 'Idempotent request in progress', hint: 'A request with this `Idempotency-Key` is still running; retry in a moment to get its response.' },
  payload_too_large: { status: 413, title: 'Body too large', hint: `Request bodies are limited to ${BOUNDS.bodyMaxBytes / 1024} kB; send logos by URL.` },
  unsupported_media_type: { status: 415, title: 'Unsupported media type', hint: 'Send `Content-Type: application/json`.' },
  validation_failed: { status: 422, title: 'Validation failed', hint: 'Fix each entry of `error.fields` and send the request again.' },
  rate_limited: { status: 429, title: 'Rate limit exceeded', hint: 'Wait the number of seconds in `Retry-After`; credentials raise the per-minute limit.' },
  headers_too_large: { status: 431, title: 'Headers too large', hint: 'Keep all request headers together under 16 kB; send data in the body, not in headers.' },
  internal_error: { status: 500, title: 'Internal error', hint: 'Retry later; quote the `X-Request-Id` header when reporting it.' },
  catalog_unavailable: { status: 502, title: 'Catalog source unavailable', hint: 'Retry in a minute.' },
  shops_unavailable: { status: 502, title: 'Shop list unavailable', hint: 'Retry in a minute.' },
  intake_unavailable: { status: 502, title: 'Intake unavailable', hint: 'The shop request was not stored; retry with the same `Idempotency-Key`.' },
  upstream_unavailable: { status: 502, title: 'Service unavailable', hint: 'Retry in a moment; quote the `X-Request-Id` header if it persists.' },
  service_unavailable: { status: 503, title: 'Service briefly unavailable', hint: 'Retry after the seconds in `Retry-After`; a write with an `Idempotency-Key` is safe to retry.' },
  upstream_timeout: { status: 504, title: 'Service timed out', hint: 'Retry in a moment; a write with an `Idempotency-Key` is safe to retry.' },
} as const satisfies Record<string, { status: number; title: string; hint: string }>;

export type ErrorCode = keyof typeof ERROR_CODES;
export const ERROR_CODE_LIST = Object.keys(ERROR_CODES) as ErrorCode[];

export const FieldProblem = z
  .object({
    field: z.string().openapi({ example: 'organization.email' }),
    message: z.string(),
  })
  .openapi('FieldProblem');
export type FieldProblem = z.infer<typeof FieldProblem>;

export const ErrorBody = z
  .object({
    code: z.string().openapi({ example: 'validation_failed' }),
    message: z.string(),
    status: z.number().int(),
    hint: z.string().optional(),
    docs: z.url().optional(),
    openapi: z.url().optional(),
    fields: z.array(FieldProblem).optional(),
  })
  .openapi('ErrorBody');

export const ErrorEnvelope = z.object({ error: ErrorBody }).openapi('Error');
export type ErrorEnvelope = z.infer<typeof ErrorEnvelope>;

/** `<base>/developers#<code>`: the anchor every envelope's `docs` link points at. */
export function errorDocsUrl(publicBaseUrl: string, code: string): string {
  return `${publicBaseUrl}/developers#${code}`;
}

// The facts the documents state, derived from contracts so a changed limit,
// scope or error code changes every document with it.
import {
  BOUNDS,
  ERROR_CODES,
  ERROR_CODE_LIST,
  LIMITS,
  OPERATIONS,
  SCOPES,
  SCOPE_DESCRIPTIONS,
  SERVICE_FACTS,
  type ErrorCode,
  type OperationDef,
} from '@msa/contracts';
import { operationHref, type DocUrls } from './context.js';

export const SERVICE_DESCRIPTION =
  'Free, branded merch shops for schools, clubs, companies, craft businesses and restaurants in Germany and Austria. ' +
  'Read the catalog of printable base products with gross prices, list public shops, get free credentials, and submit a shop request ' +
  `that the operator team turns into a live shop within ${SERVICE_FACTS.replyWithinHours} hours. Prices are gross EUR incl. 19 % VAT unless a field is named \`netto\`.`;

export const DEPRECATION_NOTICE_DAYS = 180;

export const BODY_LIMIT_KB = BOUNDS.bodyMaxBytes / 1024;

export interface LimitRow {
  name: string;
  value: string;
}

export function limitRows(): LimitRow[] {
  const mb = LIMITS.logoMaxBytes / (1024 * 1024);
  return [
    { name: 'Requests per minute with credentials', value: `${LIMITS.ratePerMinuteWithCredentials}` },
    { name: 'Requests per minute without credentials (per IP address)', value: `${LIMITS.ratePerMinuteAnonymous}` },
    {
      name: 'MCP handshake messages per minute (`initialize`, `notifications/initialized`, `server/discover` on `POST /mcp`; per credentials, else per IP address); counted apart from the requests above, so connecting does not spend them',
      value: `${LIMITS.mcpHandshakesPerMinute}`,
    },
    { name: 'Live shop requests per day (per credentials)', value: `${LIMITS.liveShopRequestsPerDay}` },
    { name: 'Sandbox shop requests per day (per credentials; per IP address without credentials)', value: `${LIMITS.sandboxShopRequestsPerDay}` },
    {
      name: 'Sandbox shop requests per day per IP address, across all credentials and anonymous calls from it',
      value: `${LIMITS.sandboxShopRequestsPerAddressPerDay}`,
    },
    {
      name: 'Live shop requests per day whose contact e-mail is at one domain, across all credentials',
      value: `${LIMITS.liveShopRequestsPerDomainPerDay}`,
    },
    {
      name: 'Quotes stored per day (per credentials / per IP address, credentials or none); the same quote asked again answers the stored one and counts nothing',
      value: `${LIMITS.quotesPerPrincipalPerDay} / ${LIMITS.quotesPerAddressPerDay}`,
    },
    { name: 'Credentials created per IP address per day (keys and registrations together)', value: `${LIMITS.keyCreationsPerIpPerDay}` },
    {
      name: 'Failed authentications per IP address per minute (unknown key, invalid token, malformed credential); past it `429` until the window resets, and credentials checked only if already known',
      value: `${LIMITS.failedAuthPerIpPerMinute}`,
    },
    {
      name: 'Wrong client secrets per `client_id` at `/oauth/token` before back-off; then `429` for a pause that doubles with each further wrong secret, forgotten at the first success',
      value: `${LIMITS.tokenFailuresBeforeBackoff}; pause ${LIMITS.tokenBackoffBaseSeconds} s doubling up to ${LIMITS.tokenBackoffMaxSeconds / 60} min`,
    },
    { name: 'One IP address in the limits above', value: 'an IPv4 address, or an IPv6 /64 (all addresses of one /64 share one count; IPv4-mapped IPv6 counts as IPv4)' },
    { name: 'Day boundary of daily limits', value: 'midnight UTC (calendar day)' },
    { name: '`limit` of GET /v1/products', value: `1–${LIMITS.listProductsLimitMax}, default ${LIMITS.listProductsLimitDefault}` },
    { name: '`q` / `type` query', value: `max ${LIMITS.queryQMax} / ${LIMITS.queryTypeMax} characters` },
    { name: 'Products per shop request', value: `max ${LIMITS.productsPerShopRequest}` },
    { name: 'Lines per quote / pieces per line', value: `1–${LIMITS.quoteLinesMax} / 1–${LIMITS.quoteQuantityMax}` },
    { name: 'Quote lifetime (read back and named by a shop request until then)', value: `${LIMITS.quoteLifetimeDays} days` },
    { name: '`shop_name`', value: `max ${LIMITS.shopNameMax} characters` },
    { name: '`notes`', value: `max ${LIMITS.notesMax} characters` },
    { name: '`occasion`', value: `max ${LIMITS.occasionMax} characters` },
    { name: 'Product and design `comment`', value: `max ${LIMITS.commentMax} characters` },
    { name: 'Design `width_cm`', value: `${LIMITS.designWidthMinCm}–${LIMITS.designWidthMaxCm} cm` },
    { name: 'Logo file (`logo_url`)', value: `max ${mb} MB, PNG, SVG or JPG` },
    { name: 'Key `name`', value: `${LIMITS.keyNameMin}–${LIMITS.keyNameMax} characters` },
    { name: 'Access token lifetime', value: `${LIMITS.accessTokenLifetimeSeconds / 60} minutes` },
    { name: 'Idempotency window', value: `${LIMITS.idempotencyWindowSeconds / 3600} hours` },
    { name: 'Request body', value: `max ${BODY_LIMIT_KB} kB` },
    { name: 'JSON nesting (objects and arrays inside each other)', value: `max ${BOUNDS.jsonMaxDepth} levels` },
    { name: 'Request headers', value: 'max 16 kB together' },
    { name: 'API key / access token', value: `max ${BOUNDS.apiKeyMaxLength} / ${BOUNDS.accessTokenMaxLength} characters` },
    { name: 'Price of the service', value: '0 EUR; shop setup free; minimum order quantity 1' },
  ];
}

export function freeTierLimits() {
  return {
    requests_per_minute_with_credentials: LIMITS.ratePerMinuteWithCredentials,
    requests_per_minute_without_credentials: LIMITS.ratePerMinuteAnonymous,
    live_shop_requests_per_day: LIMITS.liveShopRequestsPerDay,
    sandbox_shop_requests_per_day: LIMITS.sandboxShopRequestsPerDay,
    sandbox_shop_requests_per_ip_per_day: LIMITS.sandboxShopRequestsPerAddressPerDay,
    live_shop_requests_per_contact_domain_per_day: LIMITS.liveShopRequestsPerDomainPerDay,
    quotes_per_day: LIMITS.quotesPerPrincipalPerDay,
    quotes_per_ip_per_day: LIMITS.quotesPerAddressPerDay,
    credential_creations_per_ip_per_day: LIMITS.keyCreationsPerIpPerDay,
    failed_authentications_per_ip_per_minute: LIMITS.failedAuthPerIpPerMinute,
    token_failures_per_client_before_backoff: LIMITS.tokenFailuresBeforeBackoff,
    token_backoff_max_seconds: LIMITS.tokenBackoffMaxSeconds,
    day_boundary: 'UTC calendar day (resets at 00:00 UTC)',
    access_token_lifetime_seconds: LIMITS.accessTokenLifetimeSeconds,
    idempotency_window_seconds: LIMITS.idempotencyWindowSeconds,
    list_products_limit: { min: 1, max: LIMITS.listProductsLimitMax, default: LIMITS.listProductsLimitDefault },
    products_per_shop_request: LIMITS.productsPerShopRequest,
    lines_per_quote: LIMITS.quoteLinesMax,
    quote_lifetime_days: LIMITS.quoteLifetimeDays,
    logo_max_bytes: LIMITS.logoMaxBytes,
    request_body_max_bytes: BOUNDS.bodyMaxBytes,
    json_max_depth: BOUNDS.jsonMaxDepth,
  };
}

export function scopeList() {
  return SCOPES.map((scope) => ({ scope, description: SCOPE_DESCRIPTIONS[scope] }));
}

export interface ErrorCodeDoc {
  code: ErrorCode;
  status: number;
  title: string;
  hint: string;
}

export function errorCodeDocs(): ErrorCodeDoc[] {
  return ERROR_CODE_LIST.map((code) => ({ code, ...ERROR_CODES[code] }));
}

export interface Endpoint {
  method: string;
  path: string;
  href: string;
  what: string;
}

/** The operations the endpoint lists name, in table order; images and icons are only linked to, never called. */
export function listedOperations(table: readonly OperationDef[] = OPERATIONS): OperationDef[] {
  return table.filter((op) => op.tag !== 'Assets');
}

/** The calls that work without any credentials (spec §5.5). */
export function zeroAuthEndpoints(u: DocUrls, table: readonly OperationDef[] = OPERATIONS): Endpoint[] {
  return listedOperations(table)
    .filter((op) => op.auth !== 'required')
    .map((op) => {
      const what = op.link?.title ?? op.summary;
      return { method: op.method, path: op.path, href: operationHref(u, op), what: op.auth === 'open' ? `${what}; credentials optional` : what };
    });
}

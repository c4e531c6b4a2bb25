// A shop request: what was sent, its id and status, and the 48-hour promise,
// or for a sandbox request that nothing was sent.
import type { ShopRequestResult } from '@msa/contracts';
import { esc, type Format } from './format.js';

export function requestView(r: ShopRequestResult, f: Format): string {
  const t = f.t;
  const products = r.products
    .map((p) => `<li>${esc(p.product)}${p.colors.length ? ` – ${esc(p.colors.join(', '))}` : ''}</li>`)
    .join('');
  const warnings = r.warnings.length ? `<ul class="warnings">${r.warnings.map((w) => `<li>${esc(w)}</li>`).join('')}</ul>` : '';
  const promise = r.sandbox ? `<p class="notice sandbox" role="status">${esc(t.sandbox)}</p>` : `<p class="notice promise" role="status">${esc(t.promise)}</p>`;
  return (
    `<article class="request"><h2>${esc(t.requestReceived)}</h2>${promise}<dl class="facts-list">` +
    `<dt>${esc(t.requestId)}</dt><dd data-field="id">${esc(r.id)}</dd>` +
    `<dt>${esc(t.status)}</dt><dd data-field="status">${esc(r.status)}</dd>` +
    `<dt>${esc(t.organization)}</dt><dd>${esc(r.organization)}</dd>` +
    `<dt>${esc(t.shopName)}</dt><dd>${esc(r.shop_name)} (${esc(r.shop_type.toUpperCase())})</dd>` +
    (r.quote_id ? `<dt>${esc(t.quote)}</dt><dd>${esc(r.quote_id)}</dd>` : '') +
    `<dt>${esc(t.received)}</dt><dd>${esc(f.date(r.created_at))}</dd>` +
    `</dl>${products ? `<h3>${esc(t.products)}</h3><ul>${products}</ul>` : ''}${warnings}</article>`
  );
}

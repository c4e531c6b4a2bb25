// A quote: its lines, totals, validity and warnings.
import type { Quote } from '@msa/contracts';
import { esc, type Format } from './format.js';

function lineRow(line: Quote['lines'][number], colors: string, f: Format): string {
  const tier = line.tier_from === null ? '–' : `${f.t.tierFrom.split(' ')[0]} ${line.tier_from}`;
  const unit = f.money(line.unit_gross);
  return (
    `<tr><th scope="row">${esc(line.product)}${colors ? `<br><small>${esc(colors)}</small>` : ''}</th>` +
    `<td class="num">${esc(line.quantity)}</td><td>${esc(tier)}</td><td class="num">${esc(unit)}</td>` +
    `<td class="num">${esc(f.money(line.total_gross))}</td></tr>`
  );
}

/** `colorsOf(i)`: the colours asked for on line i (the quote itself does not repeat them). */
export function quoteView(quote: Quote, f: Format, colorsOf: (i: number) => string, form: string): string {
  const t = f.t;
  const rows = quote.lines.map((l, i) => lineRow(l, colorsOf(i), f)).join('');
  const warnings = quote.warnings.length
    ? `<section class="warnings"><h3>${esc(t.warnings)}</h3><ul>${quote.warnings.map((w) => `<li>${esc(w)}</li>`).join('')}</ul></section>`
    : '';
  return (
    `<article class="quote"><h2>${esc(t.quote)} <small>${esc(quote.quote_id)}</small></h2>` +
    `<p class="meta">${esc(t.types[quote.organization_type])} · ${esc(quote.shop_type.toUpperCase())}</p>` +
    `<div class="scroll"><table class="lines"><thead><tr><th scope="col">${esc(t.product)}</th><th scope="col" class="num">${esc(t.quantity)}</th>` +
    `<th scope="col">${esc(t.tier)}</th><th scope="col" class="num">${esc(t.unitPrice)}</th><th scope="col" class="num">${esc(t.linePrice)}</th></tr></thead>` +
    `<tbody>${rows}</tbody></table></div>` +
    `<dl class="totals"><dt>${esc(t.net)}</dt><dd data-total="net">${esc(f.money(quote.total_net))}</dd>` +
    `<dt>${esc(t.vat)}</dt><dd data-total="vat">${esc(f.money(quote.vat))}</dd>` +
    `<dt class="grand">${esc(t.total)}</dt><dd class="grand" data-total="gross">${esc(f.money(quote.total_gross))}</dd></dl>` +
    `<p class="valid">${esc(t.validUntil)}: ${esc(f.date(quote.expires_at))}</p>${warnings}` +
    `<div class="actions"><button type="button" class="primary" data-action="open-request">${esc(t.requestShop)}</button></div>${form}</article>`
  );
}

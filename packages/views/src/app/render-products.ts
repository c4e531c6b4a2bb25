// Product cards: the garment in the colour the person picks, sizes,
// techniques and the volume tiers (gross, and net for those who pay net).
import type { Product } from '@msa/contracts';
import { esc, type Format } from './format.js';
import { garmentSvg } from './garment.js';

/** Which colour each card shows, and which form is open under which card. */
export interface ProductsState {
  products: Product[];
  colors: Record<string, string>;
  open: { handle: string; form: 'quote' | 'request' } | null;
}

function tiersTable(p: Product, f: Format): string {
  const tiers = p.quantity_prices_dtf?.tiers ?? [];
  if (tiers.length === 0) {
    return typeof p.printed_price_from === 'number' ? `<p class="price">${esc(f.t.priceFrom)} <strong>${esc(f.money(p.printed_price_from))}</strong></p>` : '';
  }
  const rows = tiers
    .map((t) => `<tr><td>${esc(t.ab)}</td><td>${esc(f.money(t.brutto))}</td><td>${esc(f.money(t.netto))}</td></tr>`)
    .join('');
  return (
    `<table class="tiers"><thead><tr><th scope="col">${esc(f.t.tierFrom)}</th><th scope="col">${esc(f.t.gross)}</th>` +
    `<th scope="col">${esc(f.t.netCompanies)}</th></tr></thead><tbody>${rows}</tbody></table>`
  );
}

function colorPicker(p: Product, chosen: string | undefined, f: Format): string {
  const colors = p.colors ?? [];
  if (colors.length === 0) return '';
  const buttons = colors
    .map(
      (c) =>
        `<button type="button" class="swatch-button" data-action="color" data-handle="${esc(p.handle)}" data-color="${esc(c)}" ` +
        `aria-pressed="${c === chosen}" title="${esc(c)}">${garmentSwatch(c)}<span>${esc(c)}</span></button>`,
    )
    .join('');
  return `<div class="colors" role="group" aria-label="${esc(f.t.color)}">${buttons}</div>`;
}

/** A small round swatch: the colour name's body (and trim) as a dot. */
function garmentSwatch(name: string): string {
  return `<span class="dot" aria-hidden="true">${garmentSvg('Handtuch', name, '')}</span>`;
}

export function productCard(p: Product, state: ProductsState, f: Format, form: string): string {
  const chosen = state.colors[p.handle] ?? p.colors?.[0];
  const techniques = (p.decoration ?? []).map((d) => f.t.techniques[d] ?? d).join(', ');
  const label = chosen ? `${p.title}, ${chosen}` : p.title;
  // The catalog's `image` is never shown: a view loads nothing from a URL.
  return (
    `<article class="card" data-handle="${esc(p.handle)}">` +
    `<div class="figure">${garmentSvg(p.type, chosen, label)}</div>` +
    `<div class="facts"><h2>${esc(p.title)}</h2>${p.type ? `<p class="type">${esc(p.type)}</p>` : ''}` +
    `${chosen ? `<p class="chosen">${esc(f.t.color)}: <strong>${esc(chosen)}</strong></p>` : ''}` +
    colorPicker(p, chosen, f) +
    (p.sizes?.length ? `<p><span class="label">${esc(f.t.sizes)}:</span> ${esc(p.sizes.join(', '))}</p>` : '') +
    (techniques ? `<p><span class="label">${esc(f.t.decoration)}:</span> ${esc(techniques)}</p>` : '') +
    tiersTable(p, f) +
    `<div class="actions"><button type="button" data-action="open-quote" data-handle="${esc(p.handle)}">${esc(f.t.getQuote)}</button>` +
    `<button type="button" class="primary" data-action="open-request" data-handle="${esc(p.handle)}">${esc(f.t.requestShop)}</button></div>` +
    `${form}</div></article>`
  );
}

export function productsView(state: ProductsState, f: Format, formFor: (p: Product) => string): string {
  if (state.products.length === 0) return `<p class="empty">${esc(f.t.noProducts)}</p>`;
  return `<div class="cards">${state.products.map((p) => productCard(p, state, f, formFor(p))).join('')}</div>`;
}

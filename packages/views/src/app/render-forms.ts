// The two forms a person fills in: a quote for one product, and the shop
// request. Plain labelled fields, prefilled with what the view knows. The
// buttons are not submit buttons: a host's sandbox may refuse form submission.
import type { OrganizationType } from '@msa/contracts';
import { esc, type Format } from './format.js';

// The contracts' list, written here so the bundle stays free of zod; the
// type makes a missing or extra entry a compile error.
const ORGANIZATION_TYPES = ['schule', 'verein', 'unternehmen', 'handwerk', 'gastro'] as const satisfies readonly OrganizationType[];
type Exhaustive<T extends OrganizationType> = [OrganizationType] extends [T] ? true : never;
export const ALL_TYPES_LISTED: Exhaustive<(typeof ORGANIZATION_TYPES)[number]> = true;

export interface RequestDraft {
  name: string;
  type: OrganizationType;
  contact_name: string;
  email: string;
  shop_name: string;
}

function typeSelect(name: string, chosen: OrganizationType, f: Format): string {
  const options = ORGANIZATION_TYPES.map((t) => `<option value="${t}"${t === chosen ? ' selected' : ''}>${esc(f.t.types[t])}</option>`).join('');
  return `<select id="${name}" name="${name}">${options}</select>`;
}

function field(id: string, label: string, input: string): string {
  return `<div class="field"><label for="${id}">${esc(label)}</label>${input}</div>`;
}

export function quoteForm(handle: string, type: OrganizationType, f: Format): string {
  return (
    `<form class="inline-form" data-form="quote" data-handle="${esc(handle)}">` +
    field('q-type', f.t.orgType, typeSelect('q-type', type, f)) +
    field('q-quantity', f.t.quantity, '<input id="q-quantity" name="q-quantity" type="number" min="1" max="10000" value="25" required>') +
    `<div class="actions"><button type="button" class="primary" data-action="submit-quote">${esc(f.t.calculate)}</button>` +
    `<button type="button" data-action="close-form">${esc(f.t.cancel)}</button></div></form>`
  );
}

export function requestForm(draft: RequestDraft, f: Format, status: string): string {
  const text = (id: string, label: string, value: string, type = 'text', auto = '') =>
    field(id, label, `<input id="${id}" name="${id}" type="${type}" value="${esc(value)}" required maxlength="200"${auto ? ` autocomplete="${auto}"` : ''}>`);
  return (
    `<form class="inline-form" data-form="request">` +
    text('r-name', f.t.orgName, draft.name, 'text', 'organization') +
    field('r-type', f.t.orgType, typeSelect('r-type', draft.type, f)) +
    text('r-contact', f.t.contactName, draft.contact_name, 'text', 'name') +
    text('r-email', f.t.email, draft.email, 'email', 'email') +
    text('r-shop', f.t.shopName, draft.shop_name) +
    `<div class="actions"><button type="button" class="primary" data-action="submit-request">${esc(f.t.send)}</button>` +
    `<button type="button" data-action="close-form">${esc(f.t.cancel)}</button></div>` +
    `${status ? `<p class="status" role="alert">${esc(status)}</p>` : ''}</form>`
  );
}

/** What the person typed into the request form. */
export function readRequestForm(form: HTMLFormElement): RequestDraft {
  const value = (name: string) => String(new FormData(form).get(name) ?? '').trim();
  const type = value('r-type');
  return {
    name: value('r-name'),
    type: (ORGANIZATION_TYPES as readonly string[]).includes(type) ? (type as OrganizationType) : 'verein',
    contact_name: value('r-contact'),
    email: value('r-email'),
    shop_name: value('r-shop'),
  };
}

// The view script shared by the product, quote and request views: the MCP
// Apps handshake, then rendering from the tool input and result the host
// sends, and the person's clicks turned into tool calls through the host.
import type { OrganizationType } from '@msa/contracts';
import { requestQuote, requestedProducts, submitRequest, failure } from './actions.js';
import { connectToHost, createBridge, type HostContext } from './bridge.js';
import { esc, formatFor, type Format } from './format.js';
import { quoteForm, readRequestForm, requestForm, type RequestDraft } from './render-forms.js';
import { productsView } from './render-products.js';
import { quoteView } from './render-quote.js';
import { requestView } from './render-request.js';
import { screenOf, type Screen, type ToolResult } from './screens.js';

const app = document.getElementById('app') as HTMLElement;
const bridge = createBridge(window.parent, window);
let ctx: HostContext = {};
let input: Record<string, unknown> = {};
let screen: Screen = { kind: 'waiting' };
let draft: RequestDraft | null = null;
let formStatus = '';

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown) => (typeof v === 'string' ? v : '');

/** The request form's first values: what the tool input and the quote already say. */
function prefill(): RequestDraft {
  const org = isObject(input.organization) ? input.organization : {};
  const quoteType = screen.kind === 'quote' ? screen.quote.organization_type : undefined;
  const type = quoteType || str(org.type) || str(input.organization_type) || 'verein';
  const name = str(org.name);
  return { name, type: type as OrganizationType, contact_name: str(org.contact_name), email: str(org.email), shop_name: str(input.shop_name) || (name ? `${name} Shop` : '') };
}

function htmlOf(s: Screen, f: Format): string {
  switch (s.kind) {
    case 'waiting':
      return `<p class="waiting">${esc(f.t.loading)}</p>`;
    case 'error':
      return `<div class="error" role="alert"><h2>${esc(f.t.failed)}</h2><p>${esc(s.message)}</p>${s.hint ? `<p>${esc(s.hint)}</p>` : ''}</div>`;
    case 'products':
      return productsView(s, f, (p) => {
        if (s.open?.handle !== p.handle) return '';
        return s.open.form === 'quote' ? quoteForm(p.handle, prefill().type, f) : requestForm(draft ?? prefill(), f, formStatus);
      });
    case 'quote':
      return quoteView(s.quote, f, (i) => (s.colors[i] ?? []).join(', '), s.formOpen ? requestForm(draft ?? prefill(), f, formStatus) : '');
    case 'request':
      return requestView(s.request, f);
  }
}

function render(): void {
  // Keep what the person typed across a redraw (a theme or locale change).
  const open = app.querySelector<HTMLFormElement>('form[data-form="request"]');
  if (open) draft = readRequestForm(open);
  const f = formatFor(ctx);
  document.documentElement.lang = f.lang;
  app.innerHTML = htmlOf(screen, f);
}

/** Theme and the host's style variables; the browser's own preference is not asked. */
function applyContext(): void {
  const root = document.documentElement;
  const theme = ctx.theme === 'dark' ? 'dark' : 'light';
  root.dataset.theme = theme;
  root.style.colorScheme = theme;
  for (const [name, value] of Object.entries(ctx.styles?.variables ?? {})) {
    if (name.startsWith('--') && typeof value === 'string') root.style.setProperty(name, value);
  }
}

function show(next: Screen): void {
  screen = next;
  draft = null;
  formStatus = '';
  render();
}

function onClick(target: HTMLElement): void {
  const action = target.dataset.action;
  const handle = target.dataset.handle ?? '';
  if (screen.kind === 'products') {
    if (action === 'color') screen.colors[handle] = target.dataset.color ?? '';
    if (action === 'open-quote') screen.open = { handle, form: 'quote' };
    if (action === 'open-request') screen.open = { handle, form: 'request' };
    if (action === 'close-form') screen.open = null;
  }
  if (screen.kind === 'quote') {
    if (action === 'open-request') screen.formOpen = true;
    if (action === 'close-form') screen.formOpen = false;
  }
  formStatus = '';
  render();
}

async function onQuote(form: HTMLFormElement): Promise<void> {
  if (screen.kind !== 'products') return;
  const data = new FormData(form);
  const product = screen.products.find((p) => p.handle === form.dataset.handle);
  if (!product) return;
  const color = screen.colors[product.handle] ?? product.colors?.[0];
  const type = String(data.get('q-type') ?? 'verein') as OrganizationType;
  input = { organization_type: type };
  show(await requestQuote(bridge, product, color, type, Number(data.get('q-quantity') ?? 1)).catch(failure));
}

async function onRequest(form: HTMLFormElement): Promise<void> {
  const s = screen;
  const products =
    s.kind === 'quote'
      ? requestedProducts({ quote: s.quote, colors: s.colors })
      : s.kind === 'products'
        ? requestedProducts({ product: s.products.find((p) => p.handle === s.open?.handle) ?? s.products[0]!, color: s.colors[s.open?.handle ?? ''] ?? s.products.find((p) => p.handle === s.open?.handle)?.colors?.[0] })
        : [];
  draft = readRequestForm(form);
  formStatus = formatFor(ctx).t.sending;
  render();
  const done = await submitRequest(bridge, draft, products, s.kind === 'quote' ? s.quote.quote_id : undefined, formatFor(ctx).t.signIn).catch((err: unknown) => ({ screen: failure(err), formStatus: undefined }));
  if (done.formStatus !== undefined && done.screen.kind !== 'request') {
    formStatus = done.formStatus;
    render();
    return;
  }
  show(done.screen);
}

function wire(): void {
  app.addEventListener('click', (e) => {
    const target = (e.target as Element).closest<HTMLElement>('button[data-action]');
    if (!target) return;
    const form = target.closest('form');
    const action = target.dataset.action;
    if (action === 'submit-quote' || action === 'submit-request') {
      if (form && form.reportValidity()) void (action === 'submit-quote' ? onQuote(form) : onRequest(form));
      return;
    }
    onClick(target);
  });
  // The shop name follows the organization name until the person types one.
  app.addEventListener('input', (e) => {
    const field = e.target as HTMLInputElement;
    const shop = app.querySelector<HTMLInputElement>('#r-shop');
    if (!shop) return;
    if (field.id === 'r-shop') shop.dataset.typed = 'true';
    if (field.id === 'r-name' && shop.dataset.typed !== 'true') shop.value = field.value.trim() ? `${field.value.trim()} Shop` : '';
  });
  bridge.onRequest('ui/resource-teardown', () => ({}));
  bridge.onRequest('ping', () => ({}));
  bridge.onNotification('ui/notifications/tool-input', (p) => {
    input = isObject(p) && isObject(p.arguments) ? p.arguments : {};
  });
  bridge.onNotification('ui/notifications/tool-result', (p) => show(screenOf((isObject(p) ? p : {}) as ToolResult, input)));
  bridge.onNotification('ui/notifications/host-context-changed', (p) => {
    ctx = { ...ctx, ...(isObject(p) ? p : {}) };
    applyContext();
    render();
  });
}

function reportSize(): void {
  let last = '';
  new ResizeObserver(() => {
    const el = document.documentElement;
    const size = { width: Math.ceil(el.scrollWidth), height: Math.ceil(el.scrollHeight) };
    const key = `${size.width}x${size.height}`;
    if (key === last) return;
    last = key;
    bridge.notify('ui/notifications/size-changed', size);
  }).observe(document.body);
}

wire();
render();
connectToHost(bridge, { name: 'merch-shop-views', version: '1.0.0' }).then(
  (result) => {
    ctx = result.hostContext ?? {};
    applyContext();
    render();
    reportSize();
  },
  (err: unknown) => show(failure(err)),
);

import type { ShopRequestBody } from '@msa/contracts';
import { fetchLogo, type LogoFetchOptions, type LogoFetchResult } from '../logos/fetch-logo.js';
import type { StoredLogo } from '../store/intake-store.js';
import type { JobLog } from './run-intake.js';

export interface CollectOptions extends LogoFetchOptions {
  /** Logo bytes attached to one e-mail at most; later logos become notes. */
  totalMaxBytes: number;
  log: JobLog;
  fetch?: (url: string, opts: LogoFetchOptions) => Promise<LogoFetchResult>;
}

/** Every distinct logo URL of the request, in the order the designs name them. */
export function logoUrlsOf(body: ShopRequestBody): string[] {
  const urls = new Set<string>();
  for (const product of body.products ?? []) {
    for (const design of product.designs ?? []) {
      if (design.logo_url) urls.add(design.logo_url);
    }
  }
  return [...urls];
}

/**
 * Downloads the logos one after another, so one request holds at most one
 * logo in flight plus what is attached. A logo that cannot be used becomes a
 * note for the operator: the request is delivered either way.
 */
export async function collectLogos(urls: string[], opts: CollectOptions): Promise<StoredLogo[]> {
  const logos: StoredLogo[] = [];
  let attachedBytes = 0;
  for (const [i, url] of urls.entries()) {
    const result = await (opts.fetch ?? fetchLogo)(url, opts);
    if (!result.ok) {
      opts.log.warn({ logoUrl: url, reason: result.reason, detail: result.detail }, 'logo not attached');
      logos.push({ url, note: refusalNote(result, opts) });
      continue;
    }
    if (attachedBytes + result.data.length > opts.totalMaxBytes) {
      opts.log.warn({ logoUrl: url, attachedBytes }, 'logo not attached: e-mail size limit');
      logos.push({ url, note: `nicht angehängt: alle Logos zusammen wären größer als ${megabytes(opts.totalMaxBytes)}; bitte über den Link laden` });
      continue;
    }
    attachedBytes += result.data.length;
    logos.push({
      url,
      filename: logoFilename(i + 1, url, result.type === 'jpeg' ? 'jpg' : result.type),
      contentType: result.contentType,
      size: result.data.length,
      data: result.data,
    });
  }
  return logos;
}

function refusalNote(result: Extract<LogoFetchResult, { ok: false }>, opts: CollectOptions): string {
  switch (result.reason) {
    case 'invalid_url':
      return `nicht geladen: keine http(s)-Adresse (${result.detail})`;
    case 'forbidden_address':
      return `nicht geladen: die Adresse ist nicht öffentlich; aus Sicherheitsgründen gesperrt (${result.detail})`;
    case 'too_large':
      return `nicht angehängt: Datei größer als ${megabytes(opts.maxBytes)}`;
    case 'not_an_image':
      return 'nicht angehängt: keine PNG-, JPEG- oder SVG-Datei';
    case 'http_status':
      return `nicht geladen: der Server antwortete mit ${result.detail}`;
    case 'too_many_redirects':
      return `nicht geladen: zu viele Weiterleitungen (${result.detail})`;
    case 'timeout':
      return `nicht geladen: keine vollständige Antwort innerhalb von ${Math.round(opts.timeoutMs / 1000)} s`;
    case 'network':
      return `nicht geladen: nicht erreichbar (${result.detail})`;
  }
}

function megabytes(bytes: number): string {
  return `${Math.round((bytes / (1024 * 1024)) * 10) / 10} MB`.replace('.', ',');
}

/** `logo-2-vereinswappen.png`: numbered like the notes, readable, safe in any mail client. */
export function logoFilename(n: number, url: string, ext: string): string {
  let base = '';
  try {
    const last = new URL(url).pathname.split('/').filter(Boolean).pop() ?? '';
    base = decodeURIComponent(last)
      .replace(/\.[a-z0-9]{1,5}$/i, '')
      .normalize('NFKD')
      .replace(/[^A-Za-z0-9_-]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 40)
      .toLowerCase();
  } catch {
    base = '';
  }
  return base ? `logo-${n}-${base}.${ext}` : `logo-${n}.${ext}`;
}

import type { ShopRequestBody } from '@msa/contracts';
import { fetchLogo, type LogoFetchOptions, type LogoFetchResult } from '../logos/fetch-logo.js';
import type { SvgSanitised } from '../logos/sanitise-svg.js';
import type { StoredLogo } from '../store/intake-store.js';
import { scrubAddresses } from '../without-addresses.js';
import type { JobLog } from './job-log.js';

export interface CollectOptions extends LogoFetchOptions {
  /** Logo bytes attached to one e-mail at most; later logos become notes. */
  totalMaxBytes: number;
  /** Time for all downloads of the request together. */
  jobBudgetMs: number;
  /** Downloads at the same time. */
  parallel: number;
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
 * Downloads the logos, up to `parallel` at once, within one time budget for
 * the request and the attachment budget: a download starts only with room
 * for its whole cap (`maxBytes`, or what is left of the budget), so the
 * bytes read never exceed what may be attached, and once the budget is
 * spent the rest are not downloaded at all. A logo that cannot be used
 * becomes a note for the operator: the request is delivered either way.
 */
export async function collectLogos(urls: string[], opts: CollectOptions): Promise<StoredLogo[]> {
  const logos: StoredLogo[] = [];
  const deadline = Date.now() + opts.jobBudgetMs;
  let attachedBytes = 0;
  let reservedBytes = 0;
  const running = new Set<Promise<void>>();
  let failure: unknown;

  const collect = async (i: number, url: string, cap: number, timeoutMs: number) => {
    const result = await (opts.fetch ?? fetchLogo)(url, { ...opts, maxBytes: cap, timeoutMs });
    if (!result.ok) {
      opts.log.warn({ logoUrl: scrubAddresses(url), reason: result.reason, detail: scrubAddresses(result.detail) }, 'logo not attached');
      logos[i] = { url, note: refusalNote(result, opts, { cap, timeoutMs }) };
      return;
    }
    let data = result.data;
    if (result.type === 'svg') {
      const { sanitiseSvg } = await import('../logos/sanitise-svg.js');
      let sanitised: SvgSanitised;
      try {
        sanitised = sanitiseSvg(data);
      } catch (err) {
        sanitised = { ok: false, reason: `not readable (${err instanceof Error ? err.message : String(err)})` };
      }
      if (!sanitised.ok) {
        opts.log.warn({ logoUrl: scrubAddresses(url), reason: 'unsafe_svg', detail: sanitised.reason }, 'logo not attached');
        logos[i] = { url, note: `abgelehnt: SVG-Datei ließ sich nicht sicher bereinigen (${sanitised.reason}); nicht angehängt` };
        return;
      }
      data = sanitised.data;
    }
    // The reservation kept room for the download; a sanitised SVG may be a few bytes longer.
    if (attachedBytes + data.length > opts.totalMaxBytes) {
      opts.log.warn({ logoUrl: scrubAddresses(url), attachedBytes }, 'logo not attached: e-mail size limit');
      logos[i] = { url, note: budgetNote(opts) };
      return;
    }
    attachedBytes += data.length;
    logos[i] = {
      url,
      filename: logoFilename(i + 1, url, result.type === 'jpeg' ? 'jpg' : result.type),
      contentType: result.contentType,
      size: data.length,
      data,
    };
  };

  for (const [i, url] of urls.entries()) {
    // Wait for a free slot with room for a whole download (with nothing running, there always is).
    let cap: number;
    for (;;) {
      cap = Math.min(opts.maxBytes, opts.totalMaxBytes - attachedBytes);
      if (running.size === 0 || (running.size < opts.parallel && attachedBytes + reservedBytes + cap <= opts.totalMaxBytes)) break;
      await Promise.race(running);
    }
    const left = deadline - Date.now();
    if (cap <= 0) {
      logos[i] = { url, note: budgetNote(opts) };
      continue;
    }
    if (left <= 0) {
      opts.log.warn({ logoUrl: scrubAddresses(url), reason: 'job_budget' }, 'logo not attached');
      logos[i] = { url, note: `nicht geladen: die Zeit für alle Logos dieser Anfrage (${seconds(opts.jobBudgetMs)}) war um` };
      continue;
    }
    reservedBytes += cap;
    const task: Promise<void> = collect(i, url, cap, Math.min(opts.timeoutMs, left))
      .catch((err: unknown) => {
        // Only a failed import of the sanitiser gets here: a broken build, which must not pass as a refused logo.
        failure ??= err;
      })
      .finally(() => {
        reservedBytes -= cap;
        running.delete(task);
      });
    running.add(task);
  }
  await Promise.all(running);
  if (failure) throw failure;
  return logos;
}

function budgetNote(opts: CollectOptions): string {
  return `nicht angehängt: alle Logos zusammen wären größer als ${megabytes(opts.totalMaxBytes)}; bitte über den Link laden`;
}

function seconds(ms: number): string {
  return `${Math.round(ms / 1000)} s`;
}

function refusalNote(result: Extract<LogoFetchResult, { ok: false }>, opts: CollectOptions, used: { cap: number; timeoutMs: number }): string {
  switch (result.reason) {
    case 'invalid_url':
      return `nicht geladen: keine http(s)-Adresse (${result.detail})`;
    case 'forbidden_address':
      return `nicht geladen: die Adresse ist nicht öffentlich; aus Sicherheitsgründen gesperrt (${result.detail})`;
    case 'too_large':
      // Cut short by what was left of the attachment budget, not by the size limit of one logo.
      return used.cap < opts.maxBytes ? budgetNote(opts) : `nicht angehängt: Datei größer als ${megabytes(opts.maxBytes)}`;
    case 'not_an_image':
      return 'nicht angehängt: keine PNG-, JPEG- oder SVG-Datei';
    case 'http_status':
      return `nicht geladen: der Server antwortete mit ${result.detail}`;
    case 'too_many_redirects':
      return `nicht geladen: zu viele Weiterleitungen (${result.detail})`;
    case 'timeout':
      return used.timeoutMs < opts.timeoutMs
        ? `nicht geladen: die Zeit für alle Logos dieser Anfrage (${seconds(opts.jobBudgetMs)}) war um`
        : `nicht geladen: keine vollständige Antwort innerhalb von ${seconds(opts.timeoutMs)}`;
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

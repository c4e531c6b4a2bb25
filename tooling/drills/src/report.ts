import type { Answer } from './client.js';

export interface DrillFigures {
  /** What the fault did and when. */
  fault: string;
  /** Logical requests, each with its own Idempotency-Key. */
  requests: number;
  /** How many of them were sent in the burst (the rest read the quota afterwards). */
  inBurst: number;
  /** HTTP sends of those requests (retries included, the replay check not). */
  sends: number;
  created: number;
  delivered: number;
  /** What `delivered` counts: `delivered` (e-mailed and listed), `usable` (credentials that authenticate). */
  deliveredWord?: string;
  storedTwice: number;
  /** Operator e-mails that arrived twice for one request. */
  resentMails?: number;
  /** Anything else worth quoting that is not a failure. */
  note?: string;
  /** Every answer the client saw, the replay check included. */
  answers: Answer[];
  problems: string[];
}

export interface DrillReport {
  /** One line with the figures, printed for every drill. */
  summary: string;
  problems: string[];
  figures: DrillFigures;
}

export function summarize(name: string, f: DrillFigures): DrillReport {
  const errors = f.answers.filter((a) => a.status >= 500 && a.status !== 502 && a.status !== 503 && a.status !== 504).length;
  const during = new Map<string, number>();
  for (const a of f.answers) {
    if (a.status === 201 || a.status === 200) continue;
    const key = a.status === 0 ? (a.error ?? 'no answer') : [a.status, a.code].filter(Boolean).join(' ');
    during.set(key, (during.get(key) ?? 0) + 1);
  }
  const faults = [...during].map(([k, n]) => `${k} ×${n}`).join(', ') || 'none';
  const summary =
    `drill ${name}: ${f.requests} requests sent (${f.inBurst} in the burst), ${f.created} × 201, ${f.sends - f.requests} retries, ` +
    `${f.delivered}/${f.created} ${f.deliveredWord ?? 'delivered'}, ${f.storedTwice} stored twice, ${errors} × 500, ` +
    (f.resentMails ? `${f.resentMails} operator e-mails resent, ` : '') +
    (f.note ? `${f.note}, ` : '') +
    `${f.problems.length} problems; other answers: ${faults}`;
  return { summary: `${summary}\n  fault: ${f.fault}`, problems: f.problems, figures: f };
}

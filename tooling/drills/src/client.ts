// The client of the drills: what a careful agent does when the API has a
// fault. It sends each request with its own Idempotency-Key and, while the
// answer says "try again" (no answer at all, 502, 503, 504, or 409
// idempotency_key_in_use), sends the same key and body again until 201 or
// a deadline. Every answer is kept, so the checks can judge all of them.

export interface Answer {
  sentAt: number;
  /** When the answer (or the failure) came. */
  answeredAt: number;
  /** The HTTP status; 0 when no answer came (connection refused or reset, client timeout). */
  status: number;
  /** `error.code` of an error envelope. */
  code?: string;
  replayed: boolean;
  body?: Record<string, unknown>;
  /** Why no answer came. */
  error?: string;
  rateLimit?: string;
  /** The `Retry-After` header, when the answer had one. */
  retryAfter?: string;
}

export interface Outcome {
  answers: Answer[];
  /** The first 201, if one came before the deadline. */
  created?: Answer;
  /** The answer that ended the retries when it was neither 201 nor retryable. */
  refused?: Answer;
}

const CLIENT_TIMEOUT_MS = 20_000;

export function isRetryable(a: Answer): boolean {
  return a.status === 0 || a.status === 502 || a.status === 503 || a.status === 504 || (a.status === 409 && a.code === 'idempotency_key_in_use');
}

export async function send(
  url: string,
  init: { method?: string; headers: Record<string, string>; body?: unknown },
): Promise<Answer> {
  const sentAt = Date.now();
  try {
    const res = await fetch(url, {
      method: init.method ?? 'POST',
      headers: init.body === undefined ? init.headers : { 'content-type': 'application/json', ...init.headers },
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
      signal: AbortSignal.timeout(CLIENT_TIMEOUT_MS),
    });
    const text = await res.text();
    let body: Record<string, unknown> | undefined;
    try {
      body = JSON.parse(text) as Record<string, unknown>;
    } catch {
      body = { unparsed: text.slice(0, 200) };
    }
    const error = body.error as { code?: unknown } | undefined;
    return {
      sentAt,
      answeredAt: Date.now(),
      status: res.status,
      code: typeof error?.code === 'string' ? error.code : undefined,
      replayed: res.headers.get('idempotent-replayed') === 'true',
      body,
      rateLimit: res.headers.get('ratelimit') ?? undefined,
      retryAfter: res.headers.get('retry-after') ?? undefined,
    };
  } catch (err) {
    const cause = (err as { cause?: { code?: string; message?: string } }).cause;
    return { sentAt, answeredAt: Date.now(), status: 0, replayed: false, error: cause?.code ?? cause?.message ?? (err as Error).message };
  }
}

/** Sends until 201, a refusal that retrying cannot change, or the deadline. */
export async function sendUntilCreated(call: () => Promise<Answer>, deadlineMs: number): Promise<Outcome> {
  const answers: Answer[] = [];
  const deadline = Date.now() + deadlineMs;
  let delay = 100;
  for (;;) {
    const answer = await call();
    answers.push(answer);
    if (answer.status === 201) return { answers, created: answer };
    if (!isRetryable(answer)) return { answers, refused: answer };
    const left = deadline - Date.now();
    if (delay >= left) return { answers };
    // A careful agent waits the seconds the answer asks for, and still tries once more before its own deadline.
    const asked = Number(answer.retryAfter) * 1_000;
    const wait = Number.isFinite(asked) && asked > delay ? Math.min(asked * (1 + Math.random() / 10), left - 100) : delay * (0.75 + Math.random() / 2);
    await sleep(wait);
    delay = Math.min(delay * 1.5, 1_000);
  }
}

/**
 * Starts item i at i × intervalMs, so the burst is still running while the
 * fault, started at `faultAtMs`, takes something away and brings it back.
 */
export async function burst<T>(
  items: T[],
  intervalMs: number,
  run: (item: T) => Promise<void>,
  fault: { atMs: number; run: () => Promise<void> },
): Promise<void> {
  const started = items.map((item, i) => sleep(i * intervalMs).then(() => run(item)));
  const faulted = sleep(fault.atMs).then(fault.run);
  await Promise.all([...started, faulted]);
}

export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/** `r` of one policy in a `RateLimit` header (`"policy";r=3;t=100, …`). */
export function remainingOf(rateLimit: string | undefined, policy: string): number | undefined {
  const match = rateLimit && new RegExp(`"${policy}";r=(\\d+)`).exec(rateLimit);
  return match ? Number(match[1]) : undefined;
}

/** A short account of an answer for assertion messages: `201 req_…`, `409 idempotency_key_in_use`, `ECONNREFUSED`. */
export function describeAnswer(a: Answer): string {
  if (a.status === 0) return a.error ?? 'no answer';
  const id = typeof a.body?.id === 'string' ? a.body.id : typeof a.body?.client_id === 'string' ? a.body.client_id : undefined;
  return [a.status, a.code, id, a.replayed ? '(replayed)' : undefined].filter(Boolean).join(' ');
}

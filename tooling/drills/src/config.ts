// Drill timings a developer may stretch from the shell, for instance to watch
// a retry outlive a long idempotency lock:
// DRILL_RETRY_DEADLINE_MS=90000 pnpm -F @msa/drills test -t 'requests service'.
function intFromEnv(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value <= 0) throw new Error(`${name} must be a positive integer of milliseconds, got '${raw}'`);
  return value;
}

export const drillConfig = {
  /** How long the client keeps retrying one request before it counts as never accepted. */
  retryDeadlineMs: intFromEnv('DRILL_RETRY_DEADLINE_MS', 20_000),
  /** How long after the burst every accepted request has to be e-mailed and listed. */
  deliveryDeadlineMs: intFromEnv('DRILL_DELIVERY_DEADLINE_MS', 30_000),
  /** The release the compatibility drill runs beside (`COMPAT_RELEASE=1.0.0`); default: the previous one in releases.json. */
  compatRelease: process.env.COMPAT_RELEASE || undefined,
  /** What building a previous release runs with: this shell's environment, so pnpm finds its store, non-interactive. */
  releaseBuildEnv: { ...process.env, CI: 'true', TURBO_TELEMETRY_DISABLED: '1' },
  /** The only variable the services inherit: the rest of this environment (REDIS_URL in CI) is not theirs. */
  path: process.env.PATH ?? '',
};

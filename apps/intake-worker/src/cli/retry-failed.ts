/*
 * Moves failed intake jobs back to the queue, for when the cause (an SMTP
 * outage, a full mailbox) has been fixed:
 *   pnpm --filter @msa/intake-worker run retry-failed [--count N] [--dry-run]
 * Each job resumes after its last finished step, so nothing is sent twice.
 */
import { parseArgs } from 'node:util';
import { INTAKE_QUEUE } from '@msa/contracts';
import { createLogger, redisTopologyOf, loadConfig } from '@msa/service-kit';
import { createRedis } from '@msa/service-kit/redis';
import { Queue } from 'bullmq';
import { IntakeCliEnv, type IntakeCliConfig } from '../config.js';
import { scrubAddresses } from '../without-addresses.js';
import { terminalText } from './terminal-text.js';

// `pnpm run list -- --count 5` passes the `--` through; it is not an argument here.
const args = process.argv.slice(2).filter((arg, i) => !(i === 0 && arg === '--'));
const { values } = parseArgs({
  args,
  options: { count: { type: 'string', default: '1000' }, 'dry-run': { type: 'boolean', default: false } },
});
const count = Number(values.count);
if (!Number.isInteger(count) || count < 1) {
  console.error('--count must be a positive whole number');
  process.exit(2);
}

const config: IntakeCliConfig = loadConfig(IntakeCliEnv);
// Diagnostics go to stderr as JSON, so they never mix with the report on stdout.
const logger = createLogger({ service: 'intake-retry-failed', level: 'warn', destination: process.stderr });
const redis = createRedis(redisTopologyOf(config), 'worker', { logger });
const queue = new Queue(INTAKE_QUEUE, { connection: redis, prefix: config.QUEUE_PREFIX });
queue.on('error', (err) => logger.error({ err }, 'intake queue error'));
try {
  const jobs = await queue.getFailed(0, count - 1);
  let retried = 0;
  for (const job of jobs) {
    console.log(`${values['dry-run'] ? 'would retry' : 'retrying'} ${job.id}  attempts: ${job.attemptsMade}  reason: ${terminalText(scrubAddresses(job.failedReason ?? ''))}`);
    if (!values['dry-run']) {
      // A fresh set of attempts: the cause has been fixed, and backoff applies again if not.
      await job.retry('failed', { resetAttemptsMade: true, resetAttemptsStarted: true });
      retried++;
    }
  }
  console.log(values['dry-run'] ? `${jobs.length} failed job(s) found` : `${retried} job(s) re-queued`);
} finally {
  await queue.close();
  await redis.quit();
}

import { runMain } from '@msa/service-kit';
import { IntakeWorkerEnv } from './config.js';
import { startService } from './server.js';

// No `listening` line here: startService logs its own, with the queues it works.
// On SIGTERM running jobs finish first (worker.close), then Redis is quit; a
// job still running at the deadline is taken over by another worker as stalled.
await runMain({
  service: 'intake-worker',
  env: IntakeWorkerEnv,
  start: startService,
  beforeStart: (config, logger) => {
    if (!config.SMTP_URL) logger.warn({ outbox: config.OUTBOX_DIR }, 'SMTP_URL is not set: e-mails are written to the outbox directory');
  },
});

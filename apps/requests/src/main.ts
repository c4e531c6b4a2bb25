import { runMain } from '@msa/service-kit';
import { RequestsEnv } from './config.js';
import { startService } from './server.js';

await runMain({
  service: 'requests',
  env: RequestsEnv,
  start: startService,
  listening: (config, running) => ({ port: running.port, catalog: config.CATALOG_URL, queuePrefix: config.QUEUE_PREFIX }),
});

import { runMain } from '@msa/service-kit';
import { GatewayEnv } from './config.js';
import { startService } from './server.js';

await runMain({
  service: 'gateway',
  env: GatewayEnv,
  start: startService,
  listening: (config, running) => ({ port: running.port, url: config.PUBLIC_BASE_URL }),
});

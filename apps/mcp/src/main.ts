import { runMain } from '@msa/service-kit';
import { McpEnv } from './config.js';
import { startService } from './server.js';

await runMain({
  service: 'mcp',
  env: McpEnv,
  start: startService,
  listening: (config, running) => ({ port: running.port, catalog: config.CATALOG_URL, shops: config.SHOPS_URL, requests: config.REQUESTS_URL }),
});

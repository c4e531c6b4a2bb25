import { runMain } from '@msa/service-kit';
import { ShopsEnv } from './config.js';
import { startService } from './server.js';

await runMain({
  service: 'shops',
  env: ShopsEnv,
  start: startService,
  listening: (config, running) => ({ port: running.port, source: config.SHOPS_SOURCE_URL ?? 'data/shops.json' }),
});

import { runMain } from '@msa/service-kit';
import { CatalogEnv } from './config.js';
import { startService } from './server.js';

await runMain({
  service: 'catalog',
  env: CatalogEnv,
  start: startService,
  listening: (config, running) => ({ port: running.port, source: config.CATALOG_SOURCE_URL ?? 'data/products.json' }),
});

import { runMain } from '@msa/service-kit';
import { IdentityEnv } from './config.js';
import { startService } from './server.js';

await runMain({
  service: 'identity',
  env: IdentityEnv,
  start: startService,
  listening: (_config, running) => ({ port: running.port }),
});

/*
 * The operator CLI of the rights of access and erasure (from the root):
 *   pnpm privacy:export <email> [--scan]   prints everything stored about the address, as JSON
 *   pnpm privacy:erase <email> [--scan]    erases it, as DELETE /v1/me/data does, and prints what it did
 * The address goes to stdout only within the export; diagnostics go to stderr without it.
 */
import { createLogger, loadConfig, redisTopologyOf } from '@msa/service-kit';
import { createRedis } from '@msa/service-kit/redis';
import { PrivacyCliEnv, parsePrivacyArgs, runPrivacyCommand } from '../privacy/privacy-cli.js';

const command = parsePrivacyArgs(process.argv.slice(2));
if ('usage' in command) {
  console.error(command.usage);
  process.exit(2);
}
const config = loadConfig(PrivacyCliEnv);
const logger = createLogger({ service: 'identity-privacy', level: 'warn', destination: process.stderr });
const redis = createRedis(redisTopologyOf(config), 'api', { logger });
try {
  console.log(JSON.stringify(await runPrivacyCommand(config, redis, command), null, 2));
} catch (err) {
  // An erasure stopped half way is finished by running it again: every step is idempotent.
  console.error(`privacy ${command.action} failed: ${(err as Error).message}; nothing is lost by running it again`);
  process.exitCode = 1;
} finally {
  await redis.quit().catch(() => redis.disconnect());
}

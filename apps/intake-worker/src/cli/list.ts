/*
 * Prints the newest entries of the internal request list, newest first:
 *   pnpm --filter @msa/intake-worker run list [--count N] [--json]
 * Caller text is printed with its control and direction characters escaped.
 */
import { parseArgs } from 'node:util';
import { createLogger, redisTopologyOf, loadConfig } from '@msa/service-kit';
import { createRedis } from '@msa/service-kit/redis';
import { IntakeCliEnv } from '../config.js';
import { createIntakeStore } from '../store/intake-store.js';
import { terminalJson, terminalText } from './terminal-text.js';

// `pnpm run list -- --count 5` passes the `--` through; it is not an argument here.
const args = process.argv.slice(2).filter((arg, i) => !(i === 0 && arg === '--'));
const { values } = parseArgs({
  args,
  options: { count: { type: 'string', default: '20' }, json: { type: 'boolean', default: false } },
});
const count = Number(values.count);
if (!Number.isInteger(count) || count < 1) {
  console.error('--count must be a positive whole number');
  process.exit(2);
}

const config = loadConfig(IntakeCliEnv);
// Diagnostics go to stderr as JSON, so they never mix with the list on stdout.
const logger = createLogger({ service: 'intake-list', level: 'warn', destination: process.stderr });
const redis = createRedis(redisTopologyOf(config), 'api', { logger });
try {
  const entries = await createIntakeStore(redis, config.REDIS_KEY_PREFIX).readList(count);
  if (values.json) {
    for (const entry of entries) console.log(terminalJson({ entry_id: entry.id, ...entry.fields }));
  } else if (entries.length === 0) {
    console.log(`The request list ${config.REDIS_KEY_PREFIX}intake:list is empty.`);
  } else {
    for (const entry of entries) {
      const id = terminalText(entry.id);
      const f = Object.fromEntries(Object.entries(entry.fields).map(([name, value]) => [name, terminalText(value)]));
      console.log(`${f.created_at ?? '?'}  ${f.request_id ?? '?'}  ${f.shop_name ?? ''}  [entry ${id}]`);
      console.log(`  organization: ${f.organization ?? ''} (${f.organization_type ?? ''}, ${f.shop_type ?? ''})`);
      console.log(`  contact:      ${f.contact_name ?? ''} <${f.contact_email ?? ''}>`);
      // Entries of earlier versions have neither field.
      if (f.submitter_status === 'unconfirmed') console.log('  address:      unconfirmed (made with a key alone)');
      if (f.confirmation_mail === 'held_back') console.log('  confirmation: held back (the address had its confirmations for the day)');
      if (f.submitter_confirmed_email) {
        console.log(`  submitter:    ${f.submitter_confirmed_email} (address confirmed) via client "${f.submitter_client_name ?? ''}" (${f.submitter_client_id ?? ''})`);
      }
      console.log(`  products:     ${f.products || '–'}${f.design_service === 'true' ? ' (design service)' : ''}`);
      if (f.quote_id) {
        console.log(`  quote:        ${f.quote_id}: ${f.quote_total_net ?? ''} net + ${f.quote_vat ?? ''} VAT = ${f.quote_total_gross ?? ''} gross EUR (${f.quote_basis ?? ''} basis)`);
        for (const line of (f.quote_lines ?? '').split(' | ').filter(Boolean)) console.log(`                ${line}`);
      }
      console.log(`  logo notes:   ${f.logo_notes || '–'}`);
    }
  }
} finally {
  redis.disconnect();
}

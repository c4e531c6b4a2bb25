import { SERVICE_FACTS } from '@msa/contracts';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  define: { __REPLY_WITHIN_HOURS__: String(SERVICE_FACTS.replyWithinHours) },
  test: {
    pool: 'forks',
    maxWorkers: 2,
    projects: [
      { extends: true, test: { name: 'unit', include: ['src/**/*.test.ts'] } },
      { extends: true, test: { name: 'component', include: ['test/**/*.test.ts'] } },
    ],
  },
});

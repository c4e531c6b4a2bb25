import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

// `pnpm test:images` only: the package's own config (pnpm test) includes test/ alone.
export default defineConfig({
  test: {
    root: fileURLToPath(new URL('.', import.meta.url)),
    include: ['*.test.ts'],
    pool: 'forks',
    maxWorkers: 1,
    testTimeout: 180_000,
    // Building seven images without a warm cache takes minutes.
    hookTimeout: 30 * 60_000,
  },
});

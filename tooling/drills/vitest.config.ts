import { defineConfig } from 'vitest/config';

// One file, drills one after another: they share one set of processes and
// each drill's figures must not be skewed by another running beside it.
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    pool: 'forks',
    maxWorkers: 1,
    fileParallelism: false,
    testTimeout: 120_000,
    hookTimeout: 60_000,
  },
});

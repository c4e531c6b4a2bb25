import { runBenchmarks } from './index.mjs';

process.exit(await runBenchmarks());

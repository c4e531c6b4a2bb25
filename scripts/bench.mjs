// `pnpm bench`: the performance budget of DESIGN.md, measured with real
// processes on this machine (tooling/bench/README.md says what and how).
// Exits 1 when a budget is missed.
import { runBenchmarks } from '../tooling/bench/src/index.mjs';

process.exit(await runBenchmarks());

import type { DrillSystem } from '../src/drill-system.js';
import { onTestFailed } from 'vitest';

/** On the current test's failure, prints every process's output since this call: what a drill's figures cannot say. */
export function printLogsOnFailure(system: DrillSystem): void {
  const startedAt = Date.now();
  onTestFailed(() => {
    console.log(`--- process output since the test began ---\n${system.logsSince(startedAt)}`);
  });
}

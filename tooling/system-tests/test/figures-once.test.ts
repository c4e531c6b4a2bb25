// The figures the service promises (body limit, reply time, daily quotas) are
// written once, in contracts, and every mail, document, tool text and check
// reads them from there; a second literal copy is how they drift apart.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { BOUNDS, LIMITS, SERVICE_FACTS } from '@msa/contracts';
import { describe, expect, it } from 'vitest';
import { ROOT } from './deploy-support.js';

/** Source files in git, tests and fixtures left out: tests may state the figure they expect. */
function sourceFiles(): string[] {
  const tracked = execFileSync('git', ['ls-files', '-z', '--', 'apps', 'packages', 'tooling', 'scripts', 'infra'], { cwd: ROOT, encoding: 'utf8' });
  return tracked
    .split('\0')
    .filter((file) => /\.(ts|mts|js|mjs)$/.test(file))
    .filter((file) => !/\.test\.[mc]?[tj]s$/.test(file) && !/(^|\/)(test|tests|fixtures)\//.test(file));
}

function filesMatching(pattern: RegExp): string[] {
  return sourceFiles().filter((file) => pattern.test(readFileSync(join(ROOT, file), 'utf8')));
}

const CONTRACTS_COMMON = 'packages/contracts/src/common.ts';

const FIGURES = [
  {
    name: 'the request body limit',
    value: BOUNDS.bodyMaxBytes,
    pattern: new RegExp(`\\b${BOUNDS.bodyMaxBytes}\\b|\\b${BOUNDS.bodyMaxBytes / 1024}\\s*\\*\\s*1024\\b|\\b${BOUNDS.bodyMaxBytes / 1024}\\s*kB\\b`),
  },
  {
    name: 'the reply time',
    value: SERVICE_FACTS.replyWithinHours,
    pattern: new RegExp(`\\b${SERVICE_FACTS.replyWithinHours}\\s*(hours?|Stunden|h\\b)|replyWithinHours:\\s*${SERVICE_FACTS.replyWithinHours}\\b`),
  },
  {
    name: 'the live shop requests a day',
    value: LIMITS.liveShopRequestsPerDay,
    pattern: new RegExp(`liveShopRequestsPerDay:\\s*\\d|\\b${LIMITS.liveShopRequestsPerDay} live shop requests`),
  },
  {
    name: 'the sandbox shop requests a day',
    value: LIMITS.sandboxShopRequestsPerDay,
    pattern: new RegExp(`sandboxShopRequestsPerDay:\\s*\\d|\\b${LIMITS.sandboxShopRequestsPerDay}\\b[^\\n]{0,40}\\ba day\\b`),
  },
];

describe('figures written once', () => {
  it('finds source files to search, so an empty search cannot pass', () => {
    expect(sourceFiles()).toContain(CONTRACTS_COMMON);
    expect(sourceFiles().length).toBeGreaterThan(100);
  });

  for (const figure of FIGURES) {
    it(`states ${figure.name} (${figure.value}) as a literal only in contracts`, () => {
      expect(filesMatching(figure.pattern)).toEqual([CONTRACTS_COMMON]);
    });
  }
});

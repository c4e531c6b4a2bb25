// The figures the service promises (body limit, reply time, daily quotas) are
// written once, in contracts, and every mail, document, tool text and check
// reads them from there; a second literal copy is how they drift apart. The
// product's name too: it is PRODUCT_NAME, and a page that types it by hand
// is how it came to be spelled two ways.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { BOUNDS, LIMITS, PRODUCT_NAME, SERVICE_FACTS } from '@msa/contracts';
import { describe, expect, it } from 'vitest';
import { ROOT } from './deploy-support.js';

/** Source files in git, tests and fixtures left out: tests may state the figure they expect. */
function sourceFiles(): string[] {
  const tracked = execFileSync('git', ['ls-files', '-z', '--', 'apps', 'packages', 'tooling', 'scripts', 'infra'], { cwd: ROOT, encoding: 'utf8' });
  return tracked
    .split('\0')
    .filter((file) => /\.(ts|mts|js|mjs)$/.test(file))
    .filter((file) => !/\.test\.[mc]?[tj]s$/.test(file) && !/(^|\/)(test|tests|fixtures)\//.test(file))
    // A file deleted in the checkout (moved, not yet committed) has nothing to read.
    .filter((file) => existsSync(join(ROOT, file)));
}

function filesMatching(pattern: RegExp): string[] {
  return sourceFiles().filter((file) => pattern.test(readFileSync(join(ROOT, file), 'utf8')));
}

const CONTRACTS_COMMON = 'packages/contracts/src/common.ts';

/** Where PRODUCT_NAME is defined, the one place its words may be typed. */
const PRODUCT_NAME_HOME = 'packages/contracts/src/page-text.ts';

/** The name as written, the older "Merch-Shop API" and the German "Merch-Shop-API". Case counts: `merch-shop-agent-api` is an identifier. */
const PRODUCT_NAME_PATTERN = /Merch-Shop[ -](Agent )?API/;

/** A generated file says so on its first line; what it says is its generator's. */
const GENERATED = /^\s*(\/\/|\/\*+|<!--|#)\s*(generated|do not edit)/i;

/**
 * The sources of the apps and packages, `src/` only: code and the Markdown
 * the documents are filled from. Tests may name the product they expect, and
 * READMEs and operations documents are prose for the people running it.
 * Files not yet committed count, and files deleted in the checkout do not,
 * so a file being moved is checked where it now is.
 */
function productSources(): string[] {
  const listed = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard', '--', 'apps', 'packages'], { cwd: ROOT, encoding: 'utf8' });
  return [...new Set(listed.split('\0'))]
    .filter((file) => existsSync(join(ROOT, file)))
    .filter((file) => /^(apps|packages)\/[^/]+\/src\//.test(file) && /\.(ts|mts|js|mjs|md)$/.test(file))
    .filter((file) => !/\.test\.[mc]?[tj]s$/.test(file) && !/\/(test|tests|fixtures)\//.test(file))
    .filter((file) => !GENERATED.test(readFileSync(join(ROOT, file), 'utf8').split('\n', 1)[0]!));
}

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

  it(`writes the product's name ("${PRODUCT_NAME}") as a literal only in PRODUCT_NAME`, () => {
    const sources = productSources();
    expect(sources).toContain(PRODUCT_NAME_HOME);
    expect(sources).toContain('packages/docs/src/content/developers.md');
    expect(PRODUCT_NAME).toMatch(PRODUCT_NAME_PATTERN);
    expect(sources.filter((file) => PRODUCT_NAME_PATTERN.test(readFileSync(join(ROOT, file), 'utf8')))).toEqual([PRODUCT_NAME_HOME]);
  });

  for (const figure of FIGURES) {
    it(`states ${figure.name} (${figure.value}) as a literal only in contracts`, () => {
      expect(filesMatching(figure.pattern)).toEqual([CONTRACTS_COMMON]);
    });
  }
});

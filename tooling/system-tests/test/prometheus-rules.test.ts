// The Prometheus rules (infra/prometheus/alerts.yml) against the code and the
// documents: every rule is complete, names a metric something exports, and
// points at a runbook that exists; Redis memory is alarmed before it is full.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { ROOT, readText } from './deploy-support.js';

interface Rule {
  alert?: string;
  record?: string;
  expr: string;
  for?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}
interface RuleFile {
  groups: { name: string; rules: Rule[] }[];
}

const RULES_FILE = 'infra/prometheus/alerts.yml';
const file = parse(readText(RULES_FILE)) as RuleFile;
const rules = file.groups.flatMap((g) => g.rules);
const byName = new Map(rules.map((r) => [r.alert, r]));
const operations = readText('docs/operations.md');

/** GitHub's anchor of a Markdown heading. */
function anchorOf(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N} -]/gu, '')
    .replace(/ /g, '-');
}
const anchors = new Set([...operations.matchAll(/^#{1,6} (.+)$/gm)].map((m) => anchorOf(m[1]!)));

/** Metric names in a PromQL expression: identifiers followed by a selector, a range or an operator, minus functions and keywords. */
function metricsIn(expr: string): string[] {
  const words = expr.match(/[a-z_][a-z0-9_]*(?=\s*[{[)\s/><=!]|$)/g) ?? [];
  const notMetrics = new Set(['sum', 'max', 'min', 'avg', 'rate', 'increase', 'by', 'without', 'and', 'or', 'unless', 'on', 'ignoring']);
  return [...new Set(words.filter((w) => !notMetrics.has(w) && w.includes('_')))];
}

/** Source files of the services, where the metrics they export are named. */
function serviceSources(): string {
  const tracked = execFileSync('git', ['ls-files', '-z', '--', 'apps', 'packages'], { cwd: ROOT, encoding: 'utf8' }).split('\0');
  return tracked
    .filter((f) => /\/src\/.*\.ts$/.test(f) && !f.endsWith('.test.ts'))
    .map((f) => readFileSync(join(ROOT, f), 'utf8'))
    .join('\n');
}

describe('Prometheus rules', () => {
  it('has alerts to check, in groups with names', () => {
    expect(file.groups.length).toBeGreaterThan(0);
    for (const group of file.groups) expect(group.name).toMatch(/^[a-z-]+$/);
    expect(rules.length).toBeGreaterThanOrEqual(4);
  });

  it.each(rules.map((r) => [r.alert ?? r.record ?? '(unnamed)', r] as const))('%s is complete: expression, severity, summary and a runbook that exists', (_name, rule) => {
    expect(rule.alert).toMatch(/^[A-Z][A-Za-z]+$/);
    expect(rule.expr.trim()).not.toBe('');
    expect(rule.expr.split('(').length).toBe(rule.expr.split(')').length);
    if (rule.for !== undefined) expect(rule.for).toMatch(/^\d+[smh]$/);
    expect(['page', 'warning']).toContain(rule.labels?.severity);
    expect(rule.annotations?.summary).toBeTruthy();
    const [path, anchor] = (rule.annotations?.runbook ?? '').split('#');
    expect(path).toBe('docs/operations.md');
    expect(anchors, `anchor #${anchor}`).toContain(anchor);
  });

  it('names only metrics the services export or redis_exporter provides', () => {
    const sources = serviceSources();
    for (const rule of rules) {
      for (const metric of metricsIn(rule.expr)) {
        if (metric.startsWith('redis_')) continue;
        expect(sources, `${rule.alert}: ${metric}`).toContain(`'${metric}'`);
      }
    }
  });

  it('warns when Redis uses more than 80 % of maxmemory for 5 minutes, and only when maxmemory is set', () => {
    const rule = byName.get('RedisMemoryHigh');

    expect(rule?.expr.replace(/\s+/g, ' ')).toBe('redis_memory_used_bytes / (redis_memory_max_bytes > 0) > 0.8');
    expect(rule?.for).toBe('5m');
    expect(byName.get('RedisMaxmemoryUnset')?.expr).toContain('redis_memory_max_bytes == 0');
  });

  it('pages when Redis refuses commands or evicts keys', () => {
    expect(byName.get('RedisRefusingCommands')).toMatchObject({ labels: { severity: 'page' } });
    expect(byName.get('RedisRefusingCommands')?.expr).toContain('redis_commands_rejected_calls_total');
    expect(byName.get('RedisEvictingKeys')?.expr).toContain('redis_evicted_keys_total');
  });

  it('is the file the operations guide points at, and the guide names every alert in it', () => {
    expect(operations).toContain(RULES_FILE);
    for (const rule of rules) expect(operations, rule.alert).toContain(`\`${rule.alert}\``);
  });
});

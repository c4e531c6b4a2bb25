// Plain-text tables for the terminal and CI logs: one table per budget, each
// row a measured value, its target and PASS or MISS.

/** A row that is judged; `pass` null means the value could not be measured (counts as a miss). */
export function check(metric, measured, target, pass) {
  return { metric, measured, target, verdict: pass === null ? 'MISS (not measured)' : pass ? 'PASS' : 'MISS' };
}

/** A row shown for context, not judged. */
export function info(metric, measured) {
  return { metric, measured, target: '', verdict: '' };
}

export function formatTable(title, rows) {
  const header = { metric: 'metric', measured: 'measured', target: 'target', verdict: 'result' };
  const all = [header, ...rows];
  const width = (key) => Math.max(...all.map((r) => String(r[key]).length));
  const w = { metric: width('metric'), measured: width('measured'), target: width('target'), verdict: width('verdict') };
  const line = (r) =>
    `| ${String(r.metric).padEnd(w.metric)} | ${String(r.measured).padStart(w.measured)} | ${String(r.target).padEnd(w.target)} | ${String(r.verdict).padEnd(w.verdict)} |`;
  const rule = `|${'-'.repeat(w.metric + 2)}|${'-'.repeat(w.measured + 2)}|${'-'.repeat(w.target + 2)}|${'-'.repeat(w.verdict + 2)}|`;
  return [title, '', line(header), rule, ...rows.map(line)].join('\n');
}

export function isMiss(row) {
  return row.verdict.startsWith('MISS');
}

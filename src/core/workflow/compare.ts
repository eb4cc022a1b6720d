/**
 * Two runs side by side: each step's state and time, the key timings with the change between them —
 * e.g. restore time before and after a fix, or with and without warm-up.
 */
import type { RunRecord } from './records';
import { cell, ms, stateMark, stepDuration } from './report';
import { STEP_NAMES, STEP_TITLES } from './types';

function delta(a: number | undefined, b: number | undefined): string {
  if (a === undefined || b === undefined) return '—';
  const d = b - a;
  const pct = a > 0 ? ` (${d >= 0 ? '+' : ''}${((d / a) * 100).toFixed(0)} %)` : '';
  return `${d >= 0 ? '+' : '−'}${ms(Math.abs(d))}${pct}`;
}

export function renderComparison(a: RunRecord, b: RunRecord): string {
  const out: string[] = [];
  out.push(`# Run comparison`, '');
  out.push(`- **A** ${a.runId}: ${a.worker}, ${a.outcome}, ${new Date(a.startedAt).toISOString()}`);
  out.push(`- **B** ${b.runId}: ${b.worker}, ${b.outcome}, ${new Date(b.startedAt).toISOString()}`);
  out.push('', '| Step | A | B | A time | B time | Change |', '|---|---|---|---|---|---|');
  for (const name of STEP_NAMES) {
    const sa = a.steps.find((s) => s.name === name);
    const sb = b.steps.find((s) => s.name === name);
    const da = sa && stepDuration(sa);
    const db = sb && stepDuration(sb);
    out.push(`| ${STEP_TITLES[name]} | ${sa ? stateMark(sa.state) : '—'} | ${sb ? stateMark(sb.state) : '—'} | ${ms(da)} | ${ms(db)} | ${delta(da, db)} |`);
  }
  const rows: [string, number | undefined, number | undefined][] = [
    ['start to ready-for-snapshot', a.metrics.readyMs, b.metrics.readyMs],
    ['capture', a.metrics.captureMs, b.metrics.captureMs],
    ['restore time (request → resumed)', a.metrics.restoreMs, b.metrics.restoreMs],
    ['first smoke request', a.metrics.firstTokenMs, b.metrics.firstTokenMs],
    ['whole run', a.endedAt - a.startedAt, b.endedAt - b.startedAt],
  ];
  const phases = new Set([...Object.keys(a.metrics.phaseTimingsMs ?? {}), ...Object.keys(b.metrics.phaseTimingsMs ?? {})]);
  for (const p of phases) rows.push([p, a.metrics.phaseTimingsMs?.[p], b.metrics.phaseTimingsMs?.[p]]);
  out.push('', '## Timings', '', '| Timing | A | B | Change |', '|---|---|---|---|');
  for (const [label, x, y] of rows) out.push(`| ${label} | ${ms(x)} | ${ms(y)} | ${delta(x, y)} |`);
  const changed = STEP_NAMES.filter((n) => {
    const sa = a.steps.find((s) => s.name === n);
    const sb = b.steps.find((s) => s.name === n);
    return sa && sb && (sa.state !== sb.state || sa.verdict !== sb.verdict) && (sa.state !== 'skipped' || sb.state !== 'skipped');
  });
  if (changed.length) {
    out.push('', '## Verdicts that differ', '');
    for (const n of changed) {
      const sa = a.steps.find((s) => s.name === n)!;
      const sb = b.steps.find((s) => s.name === n)!;
      out.push(`- **${STEP_TITLES[n]}**`, `  - A: ${cell(sa.verdict ?? sa.state)}`, `  - B: ${cell(sb.verdict ?? sb.state)}`);
    }
  }
  return out.join('\n') + '\n';
}

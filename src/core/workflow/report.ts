/**
 * Renders a run record as Markdown: a step table with verdicts, the key timings, then the evidence of
 * every step that did not simply pass (log tails in code blocks, findings as links to file:line). The
 * extension opens it in a Markdown preview; the CLI prints it as its text report.
 */
import { pathToFileURL } from 'node:url';
import type { RunRecord } from './records';
import { STEP_TITLES, type Evidence, type StepRecord, type StepState } from './types';

const MARK: Record<StepState, string> = {
  passed: '✓ passed',
  warned: '⚠ warned',
  failed: '✗ failed',
  skipped: '– skipped',
  cancelled: '⊘ cancelled',
  pending: '· pending',
  running: '… running',
};

export function stateMark(s: StepState): string {
  return MARK[s];
}

export function ms(v: number | undefined): string {
  if (v === undefined) return '—';
  if (v < 1000) return `${Math.round(v)} ms`;
  return `${(v / 1000).toFixed(v < 10_000 ? 2 : 1)} s`;
}

export function stepDuration(s: StepRecord): number | undefined {
  return s.startedAt !== undefined && s.endedAt !== undefined ? s.endedAt - s.startedAt : undefined;
}

/** Table cells may not hold raw pipes or newlines. */
export function cell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\r?\n/g, ' ');
}

function fence(lines: string[]): string {
  const body = lines.join('\n');
  const ticks = body.includes('```') ? '~~~~' : '```';
  return `${ticks}text\n${body}\n${ticks}`;
}

// eslint-disable-next-line no-control-regex
const ANSI = /\x1b\[[0-9;]*m/g;

export function evidenceMarkdown(ev: Evidence[]): string[] {
  const out: string[] = [];
  const logs: string[] = [];
  const flush = (): void => {
    if (logs.length) out.push(fence(logs.splice(0)));
  };
  for (const e of ev) {
    if (e.kind === 'log') {
      logs.push(e.text.replace(ANSI, ''));
      continue;
    }
    flush();
    const value = e.valueMs !== undefined ? `: ${ms(e.valueMs)}` : '';
    const where = e.location ? ` — [${e.location.file}:${e.location.line + 1}](${pathToFileURL(e.location.file).href}#L${e.location.line + 1})` : '';
    out.push(`- ${e.kind}${e.rank ? ` (${e.rank})` : ''}: ${e.text.replace(ANSI, '')}${value}${where}`);
  }
  flush();
  return out;
}

export function renderReport(r: RunRecord, file?: string): string {
  const out: string[] = [];
  out.push(`# Snapshot run ${r.runId}: ${r.outcome.toUpperCase()}`, '');
  out.push(`Worker **${r.worker}** (${r.transport}, ${r.backend}, ${r.captureMode} capture) · started ${new Date(r.startedAt).toISOString()} · took ${ms(r.endedAt - r.startedAt)}`);
  if (r.host) out.push(`Host ${r.host.hostname}${r.host.gpus.length ? ` · ${r.host.gpus.join(', ')}` : ' · no GPU'}${r.host.driverVersion ? ` · driver ${r.host.driverVersion}` : ''}`);
  out.push('', '| Step | State | Time | Verdict |', '|---|---|---|---|');
  for (const s of r.steps) out.push(`| ${STEP_TITLES[s.name]} | ${stateMark(s.state)} | ${ms(stepDuration(s))} | ${cell(s.verdict ?? '')} |`);
  const m = r.metrics;
  out.push('', '## Timings', '');
  out.push(`- start to ready-for-snapshot: ${ms(m.readyMs)}`);
  out.push(`- capture: ${ms(m.captureMs)}${m.imageBytes !== undefined ? ` (image ${(m.imageBytes / 1048576).toFixed(1)} MiB)` : ''}`);
  out.push(`- restore time (request → resumed): ${ms(m.restoreMs)}`);
  out.push(`- first smoke request: ${ms(m.firstTokenMs)}`);
  for (const [k, v] of Object.entries(m.phaseTimingsMs ?? {})) out.push(`- ${k}: ${ms(v)}`);
  const detailed = r.steps.filter((s) => s.evidence.length > 0 && s.state !== 'skipped');
  if (detailed.length) {
    out.push('', '## Evidence');
    for (const s of detailed) {
      out.push('', `### ${STEP_TITLES[s.name]}: ${stateMark(s.state)}`, '');
      if (s.verdict) out.push(s.verdict, '');
      out.push(...evidenceMarkdown(s.evidence));
    }
  }
  if (r.ranks.length) {
    out.push('', '## Ranks', '', '| Rank | Lines | Markers seen |', '|---|---|---|');
    for (const k of r.ranks) out.push(`| ${k.id} | ${k.lines} | ${Object.keys(k.markers).join(', ') || '—'} |`);
  }
  out.push('', '## Logs', '');
  if (r.logs.runDir) out.push(`- run directory on the worker: \`${r.logs.runDir}\``);
  for (const f of r.logs.workerFiles) out.push(`- worker log: \`${f}\``);
  if (r.logs.localDir) out.push(`- per-rank logs here: \`${r.logs.localDir}\``);
  if (file) out.push(`- this record: \`${file}\``);
  return out.join('\n') + '\n';
}

/**
 * Builds the Lifecycle panel's model from a run's state: one lane per rank whose segments run from
 * each marker to the next, the steps with verdicts and timings, and the history of past runs.
 * Pure (no vscode) so the shapes the panel draws are unit-tested.
 */
import type { HistoryPoint, TimelineLane, TimelineModel, TimelineSegment, TimelineStep } from '../../shared/webviewProtocol';
import { AGENT_RANK, MAIN_RANK } from '../logs/ranks';
import { STEP_NAMES, STEP_TITLES, type RankPhase, type StepName, type StepRecord } from '../workflow/types';
import type { RankMarker, RunState } from './runState';
import { restoreMs, warmupMs } from './timings';

/** A past run as the history chart needs it (adapted from the workflow's run records). */
export interface RunSummary {
  runId: string;
  startedAt: number;
  outcome: string;
  steps: readonly StepRecord[];
  /** the record's own measurement, when it has one (preferred over the step timings) */
  restoreMs?: number;
}

export function historyPoint(r: RunSummary, current = false): HistoryPoint {
  return { runId: r.runId, startedAt: r.startedAt, outcome: r.outcome, restoreMs: r.restoreMs ?? restoreMs(r.steps), warmupMs: warmupMs(r.steps), current };
}

/** Oldest first, at most `limit` runs, the current run (if given) last and marked. */
export function buildHistory(records: readonly RunSummary[], current?: RunState, limit = 20): HistoryPoint[] {
  const past = records.filter((r) => r.runId !== current?.runId).sort((a, b) => a.startedAt - b.startedAt);
  const points = past.map((r) => historyPoint(r));
  if (current) {
    const markers = current.ranks().flatMap((r) => r.markers);
    points.push({
      runId: current.runId,
      startedAt: current.startedAt,
      outcome: current.outcome ?? 'running',
      restoreMs: restoreMs(current.steps),
      warmupMs: warmupMs(current.steps, markers),
      current: true,
    });
  }
  return points.slice(-limit);
}

/**
 * A rank's markers as its lane shows them: its own, plus the main process's engine-wide ones (Dynamo
 * prints "Pausing model", "Ready for snapshot…", "Restore sentinel detected" once for the whole
 * engine, so they move every data-parallel rank on).
 */
export function laneMarkers(run: RunState, rank: string): (RankMarker & { inherited: boolean })[] {
  const own = (run.rank(rank)?.markers ?? []).map((m) => ({ ...m, inherited: false }));
  const engineWide = rank !== MAIN_RANK && rank !== AGENT_RANK ? (run.rank(MAIN_RANK)?.markers ?? []).filter((m) => ENGINE_WIDE.has(m.phase)) : [];
  return [...own, ...engineWide.map((m) => ({ ...m, line: `${MAIN_RANK}: ${m.line}`, inherited: true }))].sort((a, b) => a.at - b.at);
}

/** Phases the main process announces for the whole engine. */
const ENGINE_WIDE = new Set<RankPhase>(['pause', 'ready', 'capture', 'exit', 'restore', 'resume', 'serve']);

/** The step's phase timings (evidence with `phase`) as the sub-segments its bar is drawn with. */
function phaseParts(s: StepRecord | undefined): { parts?: { name: string; ms: number }[] } {
  const parts = (s?.evidence ?? []).flatMap((e) => (e.kind === 'timing' && e.phase && e.valueMs !== undefined && e.valueMs >= 0 ? [{ name: e.phase, ms: e.valueMs }] : []));
  return parts.length ? { parts } : {};
}

export function buildTimeline(run: RunState, history: HistoryPoint[], now = Date.now()): TimelineModel {
  const t0 = run.startedAt;
  const end = run.endedAt ?? now;
  const lanes: TimelineLane[] = run.ranks().map((r) => {
    const segments: TimelineSegment[] = [];
    for (const m of laneMarkers(run, r.rank)) {
      const prev = segments[segments.length - 1];
      // "warm-up starting" then "warm-up complete": one warm-up stretch with both lines as evidence.
      if (prev && prev.phase === m.phase) {
        prev.lines.push(m.line);
        continue;
      }
      if (prev) prev.end = Math.max(prev.start, m.at - t0);
      segments.push({ phase: m.phase, start: m.at - t0, end: 0, open: false, lines: [m.line], inherited: m.inherited });
    }
    const last = segments[segments.length - 1];
    if (last) {
      last.end = Math.max(last.start, end - t0);
      last.open = run.active;
    }
    return { rank: r.rank, segments, warnings: r.warnings, errors: r.errors, lastLine: r.lastLine };
  });
  const order: readonly StepName[] = run.plannedSteps.length ? run.plannedSteps : STEP_NAMES;
  const steps: TimelineStep[] = [];
  for (const name of order) {
    const s = run.steps.get(name);
    const start = s?.startedAt !== undefined ? s.startedAt - t0 : undefined;
    const stop = s?.endedAt !== undefined ? s.endedAt - t0 : s?.state === 'running' ? now - t0 : undefined;
    steps.push({
      name,
      title: STEP_TITLES[name],
      state: s?.state ?? 'pending',
      verdict: s?.verdict,
      start,
      end: stop,
      durationMs: start !== undefined && stop !== undefined ? Math.max(0, stop - start) : undefined,
      evidence: (s?.evidence ?? []).map((e) => ({ kind: e.kind, text: e.text, rank: e.rank, valueMs: e.valueMs })),
      ...phaseParts(s),
    });
  }
  const markers = run.ranks().flatMap((r) => r.markers);
  const segEnd = lanes.reduce((m, l) => Math.max(m, ...l.segments.map((s) => s.end)), 0);
  const stepEnd = steps.reduce((m, s) => Math.max(m, s.end ?? 0), 0);
  return {
    runId: run.runId,
    worker: run.worker,
    startedAt: t0,
    span: Math.max(end - t0, segEnd, stepEnd, 1),
    active: run.active,
    outcome: run.outcome,
    restoreMs: restoreMs(run.steps),
    warmupMs: warmupMs(run.steps, markers),
    lanes,
    steps,
    history,
  };
}

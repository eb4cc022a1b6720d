/**
 * The two numbers a snapshot run is judged by: how long the restore took and how long warm-up took.
 * Preference: the timing the workflow records as evidence for exactly that figure ("restore time
 * (restore request → resumed)" on the resume step, the same number as the run record's
 * metrics.restoreMs; "warm-up (first start to last completion)"), then the step's own start/end,
 * then (warm-up only) the rank markers. The agent's sub-timings (criu_restore, …) are not the figure.
 */
import type { StepRecord } from '../workflow/types';
import type { RankMarker } from './runState';

function timingEvidence(step: StepRecord | undefined, word: RegExp): number | undefined {
  const e = step?.evidence.find((x) => x.kind === 'timing' && typeof x.valueMs === 'number' && word.test(x.text));
  return e?.valueMs;
}

function stepDuration(step: StepRecord | undefined): number | undefined {
  if (!step || step.startedAt === undefined || step.endedAt === undefined) return undefined;
  if (step.state === 'skipped' || step.state === 'pending') return undefined;
  return Math.max(0, step.endedAt - step.startedAt);
}

export function restoreMs(steps: ReadonlyMap<string, StepRecord> | readonly StepRecord[]): number | undefined {
  const restore = find(steps, 'restore');
  return (
    timingEvidence(find(steps, 'resume'), /^restore time\b/i) ??
    timingEvidence(restore, /^restore time\b/i) ??
    timingEvidence(restore, /^restore \(request to result\)/i) ??
    stepDuration(restore)
  );
}

export function warmupMs(
  steps: ReadonlyMap<string, StepRecord> | readonly StepRecord[],
  markers: readonly RankMarker[] = [],
): number | undefined {
  const warmup = find(steps, 'warmup');
  const fromSteps = timingEvidence(warmup, /^warm-?up\b/i) ?? stepDuration(warmup);
  if (fromSteps !== undefined) return fromSteps;
  // From the markers: first warm-up start on any rank to the last rank reaching pause/ready.
  const starts = markers.filter((m) => m.phase === 'warmup').map((m) => m.at);
  if (starts.length === 0) return undefined;
  const t0 = Math.min(...starts);
  const ends = markers.filter((m) => (m.phase === 'pause' || m.phase === 'ready') && m.at >= t0).map((m) => m.at);
  return ends.length ? Math.max(...ends) - t0 : undefined;
}

function find(steps: ReadonlyMap<string, StepRecord> | readonly StepRecord[], name: string): StepRecord | undefined {
  return Array.isArray(steps) ? (steps as readonly StepRecord[]).find((s) => s.name === name) : (steps as ReadonlyMap<string, StepRecord>).get(name);
}

/**
 * Which steps a run executes. A run may ask for a subset (`--steps`, or a palette command such as
 * "Restore"); the steps it cannot do without — because the session has not got that far — are added,
 * while pure checks that were not asked for (preflight, warm-up verdict, smoke requests) are skipped.
 */
import type { SessionStage } from './session';
import { STEP_NAMES, type StepName } from './types';

/** Checks that observe without changing the worker: safe to leave out. */
export const OPTIONAL_STEPS: readonly StepName[] = ['preflight', 'warmup', 'smoke'];

/** The first step a session in `stage` can continue from. */
export function resumeIndex(stage: SessionStage): number {
  switch (stage) {
    case 'idle':
      return 0;
    case 'started':
      return STEP_NAMES.indexOf('warmup');
    case 'captured':
      return STEP_NAMES.indexOf('sourceExit');
    case 'exited':
      return STEP_NAMES.indexOf('restore');
    case 'restored':
      return STEP_NAMES.indexOf('smoke');
  }
}

export interface Plan {
  run: StepName[];
  /** True when the session's source must be replaced by a fresh one (the request starts before the session's stage). */
  fresh: boolean;
}

export function parseSteps(list: string): { steps?: StepName[]; error?: string } {
  const names = list.split(',').map((s) => s.trim()).filter(Boolean);
  if (names.length === 0) return { error: '--steps needs at least one step name' };
  const bad = names.filter((n) => !(STEP_NAMES as readonly string[]).includes(n));
  if (bad.length > 0) return { error: `unknown step(s) ${bad.map((b) => `"${b}"`).join(', ')}; known: ${STEP_NAMES.join(', ')}` };
  return { steps: names as StepName[] };
}

export function planRun(requested: readonly StepName[] | undefined, stage: SessionStage): Plan {
  const want = new Set<StepName>(requested && requested.length > 0 ? requested : STEP_NAMES);
  const indices = [...want].map((n) => STEP_NAMES.indexOf(n)).filter((i) => i !== STEP_NAMES.indexOf('report'));
  const first = indices.length > 0 ? Math.min(...indices) : STEP_NAMES.length - 1;
  const last = indices.length > 0 ? Math.max(...indices) : -1;
  let from = resumeIndex(stage);
  let fresh = false;
  // Asking for a step the session is already past (capture again after a capture) needs a new source.
  // Warm-up and ready are judged on what the running source already logged, so they do not.
  const judgedInPlace = stage === 'started' && first >= STEP_NAMES.indexOf('warmup');
  if (first < from && !judgedInPlace) {
    from = 0;
    fresh = stage !== 'idle';
  }
  const run: StepName[] = [];
  for (let i = from; i <= last; i++) {
    const name = STEP_NAMES[i]!;
    if (OPTIONAL_STEPS.includes(name) && !want.has(name)) continue;
    run.push(name);
  }
  run.push('report');
  return { run, fresh };
}

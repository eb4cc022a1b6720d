/**
 * Workflow steps and their states, shared by the state machine (core), the CLI, the views and the
 * run records. Owner: the Workflow issue (#5); the views (#6) subscribe to `RunEvent`s.
 */
export const STEP_NAMES = [
  'connect',
  'preflight',
  'start',
  'warmup',
  'ready',
  'capture',
  'sourceExit',
  'restore',
  'resume',
  'smoke',
  'report',
] as const;
export type StepName = (typeof STEP_NAMES)[number];

export const STEP_TITLES: Record<StepName, string> = {
  connect: 'Connect',
  preflight: 'Preflight',
  start: 'Start source in snapshot mode',
  warmup: 'Warm-up (every rank)',
  ready: 'Ready for snapshot',
  capture: 'Capture',
  sourceExit: 'Source exit',
  restore: 'Restore',
  resume: 'Resume',
  smoke: 'Smoke requests',
  report: 'Report',
};

export type StepState = 'pending' | 'running' | 'passed' | 'warned' | 'failed' | 'skipped' | 'cancelled';

/** One piece of evidence behind a verdict. */
export interface Evidence {
  kind: 'log' | 'exit' | 'timing' | 'request' | 'diagnostic' | 'note';
  text: string;
  /** rank id for log evidence (e.g. "DP0", "main") */
  rank?: string;
  /** workspace file + 0-based line, e.g. the SNAP001 finding behind a SIGSEGV */
  location?: { file: string; line: number };
  valueMs?: number;
  /**
   * Timing evidence that is one phase of the step's operation as the doer measured it (the snapshot
   * agent's `criu_dump`, `cuda_checkpoint` …): the timeline draws these, in order, inside the step's bar.
   */
  phase?: string;
}

export interface StepRecord {
  name: StepName;
  state: StepState;
  startedAt?: number;
  endedAt?: number;
  verdict?: string;
  evidence: Evidence[];
}

/** Rank lifecycle markers recognised in the logs (load, warm-up, pause, ready, capture, exit, restore, resume, serve). */
export type RankPhase = 'load' | 'warmup' | 'pause' | 'ready' | 'capture' | 'exit' | 'restore' | 'resume' | 'serve';

export type RunEvent =
  | { type: 'run-started'; runId: string; worker: string; at: number; steps: StepName[] }
  | { type: 'step'; runId: string; step: StepRecord }
  | { type: 'rank-marker'; runId: string; rank: string; phase: RankPhase; at: number; line: string }
  | { type: 'log-lines'; runId: string; rank: string; lines: string[] }
  | { type: 'run-ended'; runId: string; at: number; outcome: 'passed' | 'failed' | 'cancelled' };

export type RunOutcome = 'passed' | 'failed' | 'cancelled';

/** States after which a step never changes again. */
export const FINAL_STATES: readonly StepState[] = ['passed', 'warned', 'failed', 'skipped', 'cancelled'];

export function isFinal(state: StepState): boolean {
  return FINAL_STATES.includes(state);
}

/** A run failed when any step failed; cancelled when any step was cancelled and none failed. */
export function outcomeOf(steps: readonly StepRecord[]): RunOutcome {
  if (steps.some((s) => s.state === 'failed')) return 'failed';
  if (steps.some((s) => s.state === 'cancelled')) return 'cancelled';
  return 'passed';
}

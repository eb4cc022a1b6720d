/**
 * What a step implementation gets: the session, the run's step book, its signal and the run options.
 * Each step finishes its own record (passed / warned / failed with verdict and evidence) or throws;
 * the runner turns a throw into a failed or cancelled record.
 */
import type { SessionStage, WorkerSession } from './session';
import type { StepBook } from './stepBook';
import type { Evidence } from './types';

/** Finds the code behind a bad source exit (the SNAP001 finding in the workspace's snapshot module). */
export type ExitCauseFinder = (backend: string, signal: AbortSignal) => Promise<Evidence[]>;

export interface RunContext {
  runId: string;
  session: WorkerSession;
  book: StepBook;
  signal: AbortSignal;
  now: () => number;
  fetchImpl?: typeof fetch;
  findExitCause?: ExitCauseFinder;
  /** Times recorded by steps for the run summary (restore time etc.). */
  metrics: RunMetrics;
  /** A source start sent together with the hello (runner.ts `startEarly`); the start step takes it. */
  earlyStart?: Promise<EarlyStart>;
}

export interface EarlyStart {
  started: Awaited<ReturnType<WorkerSession['connection']['startSource']>>;
  /** Local clock when the start returned. */
  at: number;
}

export interface RunMetrics {
  readyMs?: number;
  captureMs?: number;
  restoreMs?: number;
  firstTokenMs?: number;
  imageBytes?: number;
  phaseTimingsMs?: Record<string, number>;
}

export type StepImpl = (rc: RunContext) => Promise<void>;

/** A source exit that arrives while a step waits for something else. */
export class SourceExitedError extends Error {
  constructor(message: string, readonly stage: SessionStage) {
    super(message);
  }
}

/**
 * Runs the workflow on a session: plans the steps, runs each with its verdict, turns throws into
 * failed / cancelled records, stops what the run started when it fails or is cancelled, writes the
 * run record, and emits a RunEvent for every change. The extension, the CLI and the bench all call
 * `runWorkflow`; nothing here knows who is watching.
 */
import { setMaxListeners } from 'node:events';
import path from 'node:path';
import type { ExitCauseFinder, RunContext, RunMetrics, StepImpl } from './context';
import { SourceExitedError } from './context';
import { OPTIONAL_STEPS, planRun } from './plan';
import { pruneRecords, recordFileName, RUN_RECORD_SCHEMA, RUN_RECORD_VERSION, writeRecord, type RunRecord } from './records';
import type { WorkerSession } from './session';
import { StepBook } from './stepBook';
import { armCapture, captureStep, sourceExitStep } from './steps/capture';
import { connectStep, preflightStep } from './steps/connect';
import { restoreStep, resumeStep } from './steps/restore';
import { smokeStep } from './steps/smokeStep';
import { readyStep, startStep, warmupStep } from './steps/source';
import { kubeCaptureStep, kubeConnectStep, kubePreflightStep, kubeReadyStep, kubeRestoreStep, kubeResumeStep, kubeSmokePrecheck, kubeSourceExitStep, kubeWarmupStep } from './kube/steps';
import { STEP_NAMES, isFinal, outcomeOf, type Evidence, type RunEvent, type StepName } from './types';
import { CancelledError, TimeoutError } from './waiter';

const IMPLS: Record<Exclude<StepName, 'report'>, StepImpl> = {
  connect: connectStep,
  preflight: preflightStep,
  start: startStep,
  warmup: warmupStep,
  ready: readyStep,
  capture: captureStep,
  sourceExit: sourceExitStep,
  restore: restoreStep,
  resume: resumeStep,
  smoke: smokeStep,
};

/** Kubernetes observe mode: every step watches the cluster; the operator starts the source, not the run. */
const KUBE_IMPLS: Record<Exclude<StepName, 'report' | 'start'>, StepImpl> = {
  connect: kubeConnectStep,
  preflight: kubePreflightStep,
  warmup: kubeWarmupStep,
  ready: kubeReadyStep,
  capture: kubeCaptureStep,
  sourceExit: kubeSourceExitStep,
  restore: kubeRestoreStep,
  resume: kubeResumeStep,
  smoke: async (rc) => {
    const why = await kubeSmokePrecheck(rc);
    if (why) rc.book.finish('smoke', 'skipped', why);
    else await smokeStep(rc);
  },
};

/** Which profile timeout bounds a step (named in a timeout verdict so the user knows what to raise). */
const TIMEOUT_SETTING: Partial<Record<StepName, string>> = {
  connect: 'timeouts.connectSeconds',
  preflight: 'timeouts.connectSeconds',
  start: 'timeouts.connectSeconds',
  warmup: 'timeouts.readySeconds',
  ready: 'timeouts.readySeconds',
  capture: 'timeouts.captureSeconds',
  sourceExit: 'timeouts.exitSeconds',
  restore: 'timeouts.restoreSeconds',
  resume: 'timeouts.restoreSeconds',
  smoke: 'timeouts.requestSeconds',
};

export interface RunWorkflowOptions {
  runId?: string;
  /** Steps asked for; prerequisites are added (plan.ts). Default: every step. */
  steps?: readonly StepName[];
  signal?: AbortSignal;
  emit?: (e: RunEvent) => void;
  now?: () => number;
  fetchImpl?: typeof fetch;
  findExitCause?: ExitCauseFinder;
  /** Leave the source / restored worker running when the run passes (palette commands that stop half-way). */
  keepRunning?: boolean;
  /** Directory for the run record (one JSON file per run); none: the record is only returned. */
  recordsDir?: string;
  /** Records kept in `recordsDir` (dynamoSnapshot.runs.keep); older ones are pruned after the write. */
  keepRecords?: number;
  /** Local directory of the per-rank log files (the log router's), recorded for the report. */
  localLogDir?: string;
}

export function newRunId(worker: string, at = new Date()): string {
  const stamp = at.toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z').replace('T', '-');
  return `${stamp}-${worker.replace(/[^A-Za-z0-9_.-]/g, '_')}-${Math.random().toString(36).slice(2, 6)}`;
}

function errorEvidence(rc: RunContext): Evidence[] {
  return rc.session.tracker.tail(15).map((text) => ({ kind: 'log', text }));
}

async function runStep(rc: RunContext, name: Exclude<StepName, 'report'>): Promise<void> {
  const { book, signal } = rc;
  const warningsBefore = rc.session.warnings.length;
  book.start(name);
  try {
    const impl = rc.session.profile.kubernetes ? KUBE_IMPLS[name as keyof typeof KUBE_IMPLS] : IMPLS[name];
    await impl(rc);
    if (!isFinal(book.get(name).state)) {
      if (signal.aborted) book.finish(name, 'cancelled', 'cancelled by the user');
      else book.finish(name, 'failed', 'the step ended without a verdict');
    }
  } catch (e) {
    if (e instanceof CancelledError || signal.aborted) {
      book.finish(name, 'cancelled', 'cancelled by the user');
    } else if (e instanceof TimeoutError) {
      const setting = TIMEOUT_SETTING[name];
      book.finish(name, 'failed', `${e.message}${setting ? ` (profile ${setting})` : ''}`, errorEvidence(rc));
    } else if (e instanceof SourceExitedError) {
      book.finish(name, 'failed', e.message, errorEvidence(rc));
    } else {
      book.finish(name, 'failed', e instanceof Error ? e.message : String(e), errorEvidence(rc));
    }
  }
  // What the agent warned about while the step ran (a truncated log, a skipped line) belongs to it.
  const warnings = rc.session.warnings.slice(warningsBefore);
  if (warnings.length) book.add(name, ...warnings.map((w): Evidence => ({ kind: 'note', text: `agent ${w.type}: ${w.message}` })));
}

export async function runWorkflow(session: WorkerSession, o: RunWorkflowOptions = {}): Promise<RunResult> {
  const now = o.now ?? Date.now;
  const signal = o.signal ?? new AbortController().signal;
  // Every wait, deadline and smoke request listens on the run's signal for a while; dozens is normal.
  setMaxListeners(200, signal);
  const runId = o.runId ?? newRunId(session.profile.name);
  const events: RunEvent[] = [];
  const emit = (e: RunEvent): void => {
    if (e.type !== 'log-lines') events.push(e);
    o.emit?.(e);
  };
  const plan = planRun(o.steps, session.stage);
  const kube = session.profile.kubernetes !== undefined;
  if (kube) plan.run = plan.run.filter((n) => n !== 'start');
  // A request that starts before the session's stage replaces the old source; a failed stop is logged
  // in the session's warnings and the new start goes ahead (the agent makes a fresh run dir).
  if (plan.fresh) await session.stopSource().catch((e: unknown) => session.warnings.push({ type: 'warning', message: `could not stop the previous source: ${e instanceof Error ? e.message : String(e)}`, at: now() }));
  const book = new StepBook(runId, emit, now);
  const metrics: RunMetrics = {};
  const rc: RunContext = { runId, session, book, signal, now, fetchImpl: o.fetchImpl, findExitCause: o.findExitCause, metrics };
  const startedAt = now();
  session.emitter = { runId, emit };
  emit({ type: 'run-started', runId, worker: session.profile.name, at: startedAt, steps: plan.run });
  const requested = new Set(o.steps ?? STEP_NAMES);
  for (const name of STEP_NAMES) {
    if (plan.run.includes(name)) continue;
    const why = kube && name === 'start' ? "Dynamo's operator starts the checkpoint source on Kubernetes; this run observes it" : OPTIONAL_STEPS.includes(name) && !requested.has(name) ? 'not requested' : STEP_NAMES.indexOf(name) < STEP_NAMES.indexOf(plan.run[0]!) ? 'done earlier in this session' : 'not part of this run';
    book.finish(name, 'skipped', why);
  }

  const startedSource = plan.run.includes('start');
  startEarly(rc, plan.run);
  for (const name of plan.run) {
    if (name === 'report') break;
    if (signal.aborted) break;
    await runStep(rc, name);
    if (book.get(name).state === 'failed' || book.get(name).state === 'cancelled') break;
    if (name === 'start' && plan.run.includes('capture')) armCapture(rc);
  }
  session.disarmCapture();
  const orphan = await stopUnusedEarlyStart(rc);
  closeUnreached(book, plan.run, signal);
  const failed = signal.aborted || book.list().some((s) => s.state === 'failed' || s.state === 'cancelled');

  book.start('report');
  const cleanup = kube
    ? [{ kind: 'note' as const, text: 'nothing to stop: on Kubernetes the pods belong to the operator and the snapshot agent' }]
    : await cleanUp(session, failed, o.keepRunning === true, startedSource);
  const file = o.recordsDir ? path.join(o.recordsDir, recordFileName(runId)) : undefined;
  if (orphan) cleanup.unshift(orphan);
  if (file) cleanup.push({ kind: 'note', text: `run record ${file}`, location: { file, line: 0 } });
  book.finish('report', 'passed', file ? `report ready; run record ${file}` : 'report ready (run record not saved: no records directory)', cleanup);
  const endedAt = now();
  const outcome = outcomeOf(book.list());
  emit({ type: 'run-ended', runId, at: endedAt, outcome });
  session.emitter = undefined;
  const record = buildRecord(session, runId, startedAt, endedAt, book, metrics, events, o.localLogDir);
  const result: RunResult = { record, file };
  if (o.recordsDir) {
    try {
      await writeRecord(o.recordsDir, record);
      if (o.keepRecords !== undefined) await pruneRecords(o.recordsDir, o.keepRecords);
    } catch (e) {
      // The run itself is over and judged; a full disk must not turn it into a failure, but it is said.
      result.file = undefined;
      result.saveError = `could not save the run record in ${o.recordsDir}: ${e instanceof Error ? e.message : String(e)}`;
      // The report step claimed the file: correct it in what the caller gets and tell the views.
      const report = record.steps.find((x) => x.name === 'report')!;
      Object.assign(report, { state: 'warned', verdict: result.saveError, evidence: report.evidence.filter((x) => !x.location) });
      o.emit?.({ type: 'step', runId, step: { ...report, evidence: [...report.evidence] } });
    }
  }
  return result;
}

/**
 * Sends the source start together with the hello instead of after it: two agent start-ups overlap
 * (~100 ms locally, a round trip or more remotely). Only where the hello cannot veto the start —
 * preflight judges only the profile unless the capture mode is criu (CRIU, root, cuda-checkpoint) —
 * and never while a first ssh connection sets up its shared master (that must happen once).
 */
function startEarly(rc: RunContext, planned: readonly StepName[]): void {
  const { session } = rc;
  const p = session.profile;
  if (p.kubernetes || p.captureMode === 'criu' || !planned.includes('connect') || !planned.includes('start')) return;
  if (p.transport.kind === 'ssh' && !session.hello) return;
  rc.earlyStart = session.connection.startSource(rc.runId, rc.signal).then((started) => ({ started, at: rc.now() }));
  rc.earlyStart.catch(() => undefined); // the start step reports it; an unused one is stopped below
}

/** A start sent early whose step never ran (connect failed, cancelled): stop what it started. */
async function stopUnusedEarlyStart(rc: RunContext): Promise<Evidence | undefined> {
  const early = rc.earlyStart;
  rc.earlyStart = undefined;
  const r = early && (await early.catch(() => undefined));
  if (!r) return undefined;
  const { started } = r;
  const handle = { runId: started.runId, runDir: started.runDir, controlDir: started.controlDir, pid: started.pid, pgid: started.pgid, logFiles: started.logFiles };
  try {
    await rc.session.connection.stop(handle, 1000);
    return { kind: 'note', text: `stopped the source started alongside the hello (process group ${handle.pgid})` };
  } catch (e) {
    return { kind: 'note', text: `could not stop the source started alongside the hello (process group ${handle.pgid}): ${e instanceof Error ? e.message : String(e)}` };
  }
}

/** Whatever the step loop did not reach: the first is cancelled when the user cancelled, the rest skipped. */
function closeUnreached(book: StepBook, planned: readonly StepName[], signal: AbortSignal): void {
  let cancelNoted = book.list().some((s) => s.state === 'cancelled');
  for (const name of planned) {
    if (name === 'report' || isFinal(book.get(name).state)) continue;
    if (signal.aborted && !cancelNoted) {
      book.finish(name, 'cancelled', 'cancelled by the user');
      cancelNoted = true;
    } else {
      book.finish(name, 'skipped', signal.aborted ? 'run cancelled' : 'an earlier step failed');
    }
  }
}

/** Stops what the session started unless the caller keeps a healthy worker for its next command. */
async function cleanUp(session: WorkerSession, failed: boolean, keepRunning: boolean, startedSource: boolean): Promise<Evidence[]> {
  const handle = session.handle;
  if (!handle) return [];
  if (!failed && keepRunning) {
    return startedSource ? [{ kind: 'note', text: `left running for the next command: process group ${handle.pgid}` }] : [];
  }
  if (session.allExited) {
    // Skips a stop round trip to the worker (an agent start, ~100 ms locally, more over ssh). The
    // follow's agent leaves on its stdin EOF within a poll; the next run or dispose awaits it.
    void session.stopFollowing();
    session.stage = 'idle';
    return [{ kind: 'note', text: 'nothing left to stop: the source exited and nothing was restored' }];
  }
  try {
    await session.stopSource();
    return [{ kind: 'note', text: `stopped the worker's processes (process group ${handle.pgid} and any restored process)` }];
  } catch (e) {
    return [{ kind: 'note', text: `could not stop the worker's processes: ${e instanceof Error ? e.message : String(e)}` }];
  }
}

export interface RunResult {
  record: RunRecord;
  /** Where the record was written. */
  file?: string;
  saveError?: string;
}

function buildRecord(
  session: WorkerSession,
  runId: string,
  startedAt: number,
  endedAt: number,
  book: StepBook,
  metrics: RunMetrics,
  events: RunEvent[],
  localLogDir: string | undefined,
): RunRecord {
  const p = session.profile;
  const steps = book.list();
  const h = session.hello;
  return {
    schema: RUN_RECORD_SCHEMA,
    version: RUN_RECORD_VERSION,
    runId,
    worker: p.name,
    transport: p.transport.kind,
    backend: p.backend,
    captureMode: p.captureMode,
    startedAt,
    endedAt,
    outcome: outcomeOf(steps),
    steps,
    metrics: { ...metrics },
    host: h ? { hostname: h.hostname, gpus: h.gpus.map((g) => g.name), driverVersion: h.driverVersion } : undefined,
    ranks: session.tracker.all().map((r) => ({ id: r.id, lines: r.lines, markers: Object.fromEntries(Object.entries(r.seen).map(([k, v]) => [k, v.at])) })),
    logs: { runDir: session.handle?.runDir, workerFiles: session.handle?.logFiles ?? [], localDir: localLogDir },
    events: events.filter((e) => e.type !== 'log-lines') as RunRecord['events'],
  };
}

/**
 * start: launch the backend in snapshot mode and follow it. warmup: wait for the warm-up markers on
 * every DP rank (bounded by timeouts.warmupSeconds once warm-up starts) and judge them when the source
 * signals readiness. ready: confirm `ready-for-snapshot` in the control directory.
 */
import type { RunContext } from '../context';
import { SourceExitedError } from '../context';
import { describeExit } from '../exitVerdict';
import type { Evidence } from '../types';
import { judgeWarmup, warmupPending } from '../warmupVerdict';
import { formatSeconds, TimeoutError } from '../waiter';

/** Throws when the source is gone while a step waits for it (the predicate helper of the waits below). */
export function assertSourceAlive(rc: RunContext, what: string): void {
  const exit = rc.session.exitOf('source');
  if (exit) throw new SourceExitedError(`source ${describeExit(exit)} ${what}`, rc.session.stage);
  if (rc.session.followEnded) throw new SourceExitedError(`the worker's event stream ended ${what} (the source is gone)`, rc.session.stage);
}

export async function startStep(rc: RunContext): Promise<void> {
  const { session } = rc;
  session.resetForNewSource();
  const early = rc.earlyStart;
  rc.earlyStart = undefined;
  const { started, at } = early ? await early : { started: await session.connection.startSource(rc.runId, rc.signal), at: rc.now() };
  session.handle = { runId: started.runId, runDir: started.runDir, controlDir: started.controlDir, pid: started.pid, pgid: started.pgid, logFiles: started.logFiles };
  session.stage = 'started';
  session.startedAt = at;
  session.startFollowing();
  rc.book.finish('start', 'passed', `source started in snapshot mode: pid ${started.pid}, process group ${started.pgid}`, [
    { kind: 'note', text: `control dir ${started.controlDir}` },
    ...started.logFiles.map((f): Evidence => ({ kind: 'note', text: `log ${f}` })),
  ]);
}

function readyAt(rc: RunContext): number | undefined {
  return rc.session.sentinel('ready-for-snapshot')?.at ?? rc.session.tracker.first('ready')?.at;
}

export async function warmupStep(rc: RunContext): Promise<void> {
  const { session, book } = rc;
  const t = session.profile.timeouts;
  const warmupSeconds = t.warmupSeconds;
  if (!(typeof warmupSeconds === 'number' && Number.isFinite(warmupSeconds) && warmupSeconds > 0)) {
    book.finish('warmup', 'failed', `timeouts.warmupSeconds of worker profile "${session.profile.name}" must be a finite number of seconds greater than 0 (got ${String(warmupSeconds)})`);
    return;
  }
  const started = session.startedAt ?? rc.now();
  const readyLeft = (): number => Math.max(0, (started + t.readySeconds * 1000 - rc.now()) / 1000);
  const alive = (): void => assertSourceAlive(rc, 'before ready-for-snapshot');

  // Phase 1: until warm-up starts somewhere or the source is ready (model loading can take minutes).
  await session.conditions.waitFor(
    'ready-for-snapshot',
    () => {
      if (readyAt(rc) !== undefined || session.tracker.first('warmup-start')) return true;
      alive();
      return undefined;
    },
    readyLeft(),
    rc.signal,
    t.readySeconds,
  );
  const warmStart = session.tracker.first('warmup-start');
  if (warmStart && readyAt(rc) === undefined) {
    book.add('warmup', { kind: 'log', rank: warmStart.rank, text: warmStart.line });
    const warmLeft = Math.max(0, (warmStart.at + warmupSeconds * 1000 - rc.now()) / 1000);
    const bindingIsWarmup = warmLeft <= readyLeft();
    try {
      await session.conditions.waitFor('ready-for-snapshot', () => (readyAt(rc) !== undefined ? true : (alive(), undefined)), Math.min(warmLeft, readyLeft()), rc.signal, t.readySeconds);
    } catch (e) {
      if (!(e instanceof TimeoutError) || !bindingIsWarmup) throw e;
      const expected = session.tracker.expectedRanks(session.profile.dataParallelSize);
      const pending = warmupPending(session.tracker, expected);
      book.finish('warmup', 'failed', `warm-up did not finish within timeouts.warmupSeconds = ${formatSeconds(warmupSeconds)}${pending.length ? ` (still warming up: ${pending.join(', ')})` : ''}; a hung warm-up never reaches ready-for-snapshot`, session.tracker.tail(10).map((text) => ({ kind: 'log', text })));
      return;
    }
  }
  const expected = session.tracker.expectedRanks(session.profile.dataParallelSize);
  // The sentinel can overtake the last ranks' log lines (two streams); give them a moment only when
  // something is missing, so a clean run releases the source without delay.
  if (warmupPending(session.tracker, expected).length > 0) {
    await session.conditions
      .waitFor('warm-up lines', () => (warmupPending(session.tracker, expected).length === 0 ? true : undefined), 0.5, rc.signal)
      .catch((e: unknown) => {
        if (!(e instanceof TimeoutError)) throw e;
      });
  }
  const v = judgeWarmup(session.tracker, session.tracker.expectedRanks(session.profile.dataParallelSize));
  book.finish('warmup', v.state, v.verdict, v.evidence);
}

export async function readyStep(rc: RunContext): Promise<void> {
  const { session, book } = rc;
  const t = session.profile.timeouts;
  const started = session.startedAt ?? rc.now();
  const left = Math.max(0, (started + t.readySeconds * 1000 - rc.now()) / 1000);
  // The sentinel, or the lifecycle's own line right after writing it: a source released at once
  // (the armed capture) can remove the file before a busy follow pass sees it.
  const seen = (): { at: number; via?: string } | undefined => {
    const s = session.sentinel('ready-for-snapshot');
    if (s) return s;
    const line = session.tracker.first('ready');
    return line ? { at: line.at, via: 'the worker logged it; the file was already gone when the control directory was read (released at once)' } : undefined;
  };
  const sentinel = await session.conditions.waitFor(
    'ready-for-snapshot in the control directory',
    () => seen() ?? (assertSourceAlive(rc, 'before ready-for-snapshot'), undefined),
    left,
    rc.signal,
    t.readySeconds,
  );
  const evidence: Evidence[] = sentinel.via ? [{ kind: 'note', text: `ready-for-snapshot: ${sentinel.via}` }] : [];
  for (const r of session.tracker.all()) {
    const pause = r.seen.pause;
    const ready = r.seen.ready;
    if (pause) evidence.push({ kind: 'log', rank: r.id, text: pause.line });
    if (ready) evidence.push({ kind: 'log', rank: r.id, text: ready.line });
    // What Dynamo changed for snapshot mode (NCCL/HF overrides, …): worth seeing, never a warning.
    for (const n of r.notes) evidence.push({ kind: 'note', rank: r.id, text: n.line });
  }
  const readyMs = sentinel.at - started;
  rc.metrics.readyMs = readyMs;
  evidence.push({ kind: 'timing', text: 'start to ready-for-snapshot', valueMs: readyMs });
  book.finish('ready', 'passed', `ready-for-snapshot written ${formatSeconds(readyMs / 1000)} after start`, evidence);
}

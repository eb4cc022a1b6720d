/**
 * restore: ask the worker to restore (criu: CRIU + CUDA restore; protocol: exercise the restore path),
 * with the agent's phase timings. resume: wait until the worker says it resumed — the restore time
 * runs from the restore request to that line (snapshot#132's definition: instructed to restore →
 * workload running again).
 */
import type { RunContext } from '../context';
import { SourceExitedError } from '../context';
import { describeExit } from '../exitVerdict';
import type { MarkerHit } from '../ranks';
import type { Evidence } from '../types';
import { formatSeconds, TimeoutError, withDeadline } from '../waiter';
import { phaseEvidence, timingEvidence } from './capture';

export async function restoreStep(rc: RunContext): Promise<void> {
  const { session, book } = rc;
  const handle = session.handle;
  if (!handle) throw new Error('nothing to restore: capture a source first');
  session.tracker.resetKinds(['restore', 'resume', 'serve']);
  session.endpoint = undefined;
  const t0 = rc.now();
  session.restoreRequestedAt = t0;
  session.restoreExitMark = session.exitCount;
  const result = await withDeadline('restore', session.profile.timeouts.restoreSeconds, rc.signal, (s) =>
    session.connection.restore(handle, s, (e) => {
      session.apply(e);
      const ev = phaseEvidence(e);
      if (ev) book.add('restore', ev);
    }),
  );
  session.apply(result);
  const took = rc.now() - t0;
  const evidence: Evidence[] = [...timingEvidence(result.timingsMs), { kind: 'timing', text: 'restore (request to result)', valueMs: took }];
  if (result.pid !== undefined) evidence.push({ kind: 'note', text: `restored process pid ${result.pid}` });
  if (!result.ok) {
    for (const line of session.tracker.tail(15)) evidence.push({ kind: 'log', text: line });
    book.finish('restore', 'failed', `${result.mode} restore failed: ${result.error ?? 'no reason given'}`, evidence);
    return;
  }
  session.stage = 'restored';
  rc.metrics.phaseTimingsMs = { ...rc.metrics.phaseTimingsMs, ...Object.fromEntries(Object.entries(result.timingsMs).map(([k, v]) => [`restore.${k}`, v])) };
  // The source's log stream ended with its exit; the restored process writes to the same files.
  if (session.followEnded) session.startFollowing();
  book.finish('restore', 'passed', `${result.mode} restore done in ${formatSeconds(took / 1000)}${restoreKind(result.mode, result.timingsMs)}`, evidence);
}

/** Protocol mode checkpoints nothing: say which process's restore path was exercised, so a reader does not take it for a CRIU restore time. */
function restoreKind(mode: string, timingsMs: Record<string, number>): string {
  if (mode !== 'protocol') return '';
  return 'start_restore_target' in timingsMs
    ? ' (no checkpoint: a fresh instance was started and released through restore-complete)'
    : ' (no checkpoint: the live source was released through restore-complete)';
}

/** The resume hit that counts: the unprefixed main process, or the last of every expected rank. */
function resumed(rc: RunContext): { hit: MarkerHit; ranks: string[] } | undefined {
  const tr = rc.session.tracker;
  const main = tr.rank('main').seen.resume;
  if (main) return { hit: main, ranks: ['main'] };
  const expected = tr.expectedRanks(rc.session.profile.dataParallelSize);
  const hits = expected.map((r) => tr.hit(r, 'resume', expected));
  if (hits.every((h): h is MarkerHit => h !== undefined)) {
    const last = hits.reduce((a, b) => (b.at > a.at ? b : a));
    return { hit: last, ranks: expected };
  }
  return undefined;
}

export async function resumeStep(rc: RunContext): Promise<void> {
  const { session, book } = rc;
  const t0 = session.restoreRequestedAt ?? rc.now();
  const left = Math.max(0, (t0 + session.profile.timeouts.restoreSeconds * 1000 - rc.now()) / 1000);
  let outcome: { kind: 'marker'; hit: MarkerHit; ranks: string[] } | { kind: 'endpoint'; at: number } = await session.conditions.waitFor<{ kind: 'marker'; hit: MarkerHit; ranks: string[] } | { kind: 'endpoint'; at: number }>(
    "the worker's resume",
    () => {
      const r = resumed(rc);
      if (r) return { kind: 'marker' as const, ...r };
      const exit = session.exitOf('restored', session.restoreExitMark) ?? session.exitOf('source', session.restoreExitMark);
      if (exit) throw new SourceExitedError(`restored worker ${describeExit(exit)} before it resumed`, session.stage);
      // A custom backend may log no resume line: a reported endpoint also shows it runs again.
      if (session.endpoint) return { kind: 'endpoint' as const, at: session.endpoint.at };
      return undefined;
    },
    left,
    rc.signal,
    session.profile.timeouts.restoreSeconds,
  );
  if (outcome.kind === 'endpoint') {
    // The agent reports the endpoint and the log lines on separate paths, so the endpoint can arrive
    // first; a resume line still in flight wins over the fallback.
    const late = await session.conditions.waitFor('the resume line', () => resumed(rc), 1, rc.signal).catch((e: unknown) => {
      if (e instanceof TimeoutError) return undefined;
      throw e;
    });
    if (late) outcome = { kind: 'marker', ...late };
  }
  const evidence: Evidence[] = [];
  for (const r of session.tracker.all()) {
    for (const k of ['restore', 'resume'] as const) {
      const h = r.seen[k];
      if (h) evidence.push({ kind: 'log', rank: r.id, text: h.line });
    }
  }
  const at = outcome.kind === 'marker' ? outcome.hit.at : outcome.at;
  const restoreMs = at - t0;
  rc.metrics.restoreMs = restoreMs;
  evidence.push({ kind: 'timing', text: 'restore time (restore request → resumed)', valueMs: restoreMs });
  if (outcome.kind === 'endpoint') {
    book.finish('resume', 'warned', `no "Resuming model after restore" line; the worker reported its endpoint ${formatSeconds(restoreMs / 1000)} after the restore request, so it is taken as resumed`, evidence);
    return;
  }
  book.finish('resume', 'passed', `worker resumed ${formatSeconds(restoreMs / 1000)} after the restore request (${outcome.ranks.join(', ')})`, evidence);
}

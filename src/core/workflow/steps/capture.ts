/**
 * capture: take the image in the profile's capture mode (protocol: release only; criu: CRIU +
 * cuda-checkpoint; command: the user's command), then `snapshot-complete` releases the source.
 * sourceExit: the released source must exit 0 without teardown; anything else fails with the log tail
 * and, when the workspace holds the backend's snapshot module, the SNAP001 finding behind it.
 */
import type { AgentEvent } from '../../protocol/agentEvents';
import type { RunContext } from '../context';
import { judgeSourceExit } from '../exitVerdict';
import type { Evidence } from '../types';
import { formatSeconds, TimeoutError, withDeadline } from '../waiter';

/** A failed or skipped phase as evidence ("cuda_lock skipped: no CUDA processes"); undefined otherwise. */
export function phaseEvidence(e: AgentEvent): Evidence | undefined {
  if (e.type !== 'phase') return undefined;
  // Phase ends are not repeated here: the result's timingsMs carries each phase's total.
  if (e.state === 'failed') return { kind: 'note', text: `${e.phase} failed${e.detail ? `: ${e.detail}` : ''}` };
  if (e.state === 'skipped') return { kind: 'note', text: `${e.phase} skipped${e.detail ? `: ${e.detail}` : ''}` };
  return undefined;
}

export function timingEvidence(timings: Record<string, number>): Evidence[] {
  return Object.entries(timings).map(([k, v]) => ({ kind: 'timing', text: k, valueMs: v }));
}

/**
 * Sends the capture request before the source is ready. The agent then waits for ready-for-snapshot
 * itself (polling every 10 ms on the worker) and releases the source at once, instead of the release
 * waiting for the sentinel to travel to us and a new agent to start (~100 ms over a local pipe, more
 * over ssh). The capture step collects the result; a run that fails before it disarms the request.
 */
export function armCapture(rc: RunContext): void {
  const { session } = rc;
  const handle = session.handle;
  if (!handle || session.armedCapture) return;
  const ctl = new AbortController();
  const onAbort = (): void => ctl.abort();
  rc.signal.addEventListener('abort', onAbort, { once: true });
  const evidence: Evidence[] = [];
  const phaseEnds: Record<string, number> = {};
  const promise = session.connection.capture(handle, ctl.signal, (e) => {
    session.apply(e);
    if (e.type === 'phase' && e.state === 'end') phaseEnds[e.phase] = e.t;
    const ev = phaseEvidence(e);
    if (ev) evidence.push(ev);
  });
  promise.catch(() => undefined).finally(() => rc.signal.removeEventListener('abort', onAbort));
  session.armedCapture = { promise, abort: () => ctl.abort(), evidence, phaseEnds };
}

export async function captureStep(rc: RunContext): Promise<void> {
  const { session, book } = rc;
  const handle = session.handle;
  if (!handle) throw new Error('no source to capture: start one first');
  const armed = session.armedCapture;
  session.armedCapture = undefined;
  const t0 = rc.now();
  const result = await withDeadline('capture', session.profile.timeouts.captureSeconds, rc.signal, (s) => {
    if (armed) {
      s.addEventListener('abort', () => armed.abort(), { once: true });
      return armed.promise;
    }
    return session.connection.capture(handle, s, (e) => {
      session.apply(e);
      const ev = phaseEvidence(e);
      if (ev) book.add('capture', ev);
    });
  });
  if (armed) {
    book.add('capture', ...armed.evidence);
    const seen = armed.phaseEnds.wait_ready;
    const released = armed.phaseEnds.write_snapshot_complete;
    if (seen !== undefined && released !== undefined) {
      book.add('capture', { kind: 'timing', text: 'ready-for-snapshot seen on the worker → snapshot-complete written', valueMs: Math.max(0, released - seen) });
    }
  }
  session.apply(result);
  const took = rc.now() - t0;
  session.capturedAt = rc.now();
  const evidence: Evidence[] = [...timingEvidence(result.timingsMs), { kind: 'timing', text: 'capture (request to result)', valueMs: took }];
  if (result.imageDir) evidence.push({ kind: 'note', text: `image ${result.imageDir}${result.imageBytes !== undefined ? `, ${(result.imageBytes / 1048576).toFixed(1)} MiB` : ''}` });
  if (!result.ok) {
    for (const line of session.tracker.tail(15)) evidence.push({ kind: 'log', text: line });
    book.finish('capture', 'failed', `${result.mode} capture failed: ${result.error ?? 'no reason given'}`, evidence);
    return;
  }
  session.stage = 'captured';
  session.sourceKilledByCapture = result.sourceKilled === true;
  // The agent's own timings, less its wait for readiness: with an armed request `took` is mostly that wait.
  const work = Object.entries(result.timingsMs).filter(([k]) => k !== 'wait_ready').reduce((a, [, v]) => a + v, 0);
  rc.metrics.captureMs = armed && work > 0 ? work : took;
  rc.metrics.imageBytes = result.imageBytes;
  rc.metrics.phaseTimingsMs = { ...rc.metrics.phaseTimingsMs, ...prefixed('capture.', result.timingsMs) };
  const release = result.sourceKilled ? 'the source was ended by the capture (Snapshot #101: no snapshot-complete)' : 'snapshot-complete written';
  book.finish('capture', 'passed', `${result.mode} capture done in ${formatSeconds(rc.metrics.captureMs / 1000)}; ${release}`, evidence);
}

function prefixed(p: string, t: Record<string, number>): Record<string, number> {
  return Object.fromEntries(Object.entries(t).map(([k, v]) => [p + k, v]));
}

export async function sourceExitStep(rc: RunContext): Promise<void> {
  const { session, book } = rc;
  const since = session.capturedAt ?? rc.now();
  const seconds = session.profile.timeouts.exitSeconds;
  let exit;
  try {
    exit = await session.conditions.waitFor(
      'source exit after snapshot-complete',
      () => {
        const x = session.exitOf('source');
        if (x) return x;
        if (session.followEnded) throw new Error('the worker event stream ended without reporting the source exit status');
        return undefined;
      },
      Math.max(0, (since + seconds * 1000 - rc.now()) / 1000),
      rc.signal,
      seconds,
    );
  } catch (e) {
    if (!(e instanceof TimeoutError)) throw e;
    book.finish('sourceExit', 'failed', `source still running ${formatSeconds(seconds)} after snapshot-complete: it must exit at once, without teardown (os._exit(0))`, session.tracker.tail(15).map((text) => ({ kind: 'log', text })));
    return;
  }
  session.stage = 'exited';
  const capturedLines: Evidence[] = session.tracker.all().flatMap((r) => (r.seen.capture ? [{ kind: 'log', rank: r.id, text: r.seen.capture.line } as Evidence] : []));
  const v = judgeSourceExit(exit, session.tracker.tail(20), exit.at - since, session.sourceKilledByCapture);
  const evidence = [...capturedLines, ...v.evidence];
  if (v.state === 'failed' && rc.findExitCause) {
    try {
      const found = await rc.findExitCause(session.profile.backend, rc.signal);
      evidence.push(...found);
    } catch (e) {
      evidence.push({ kind: 'note', text: `could not look for the snapshot module's exit: ${e instanceof Error ? e.message : String(e)}` });
    }
  }
  book.finish('sourceExit', v.state, v.verdict, evidence);
}

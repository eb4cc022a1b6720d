/**
 * The warm-up verdict: a real generation must have run on every data-parallel rank before
 * `ready-for-snapshot`, because whatever was not exercised before capture is paid for by every
 * restored worker (dynamo-snapshot.md §12 #2).
 */
import type { RankTracker } from './ranks';
import type { Evidence, StepState } from './types';
import { formatSeconds } from './waiter';

export const MISSING_WARMUP_COST =
  'restored workers pay for it: the scheduler, the decode path and the CUDA graphs were never exercised before capture, ' +
  'so the first request after every restore is slow or incoherent (dynamo-snapshot §12 #2, dynamo#11744). ' +
  'Run one real generation on every DP rank before writing ready-for-snapshot.';

export interface Verdict {
  state: Extract<StepState, 'passed' | 'warned' | 'failed'>;
  verdict: string;
  evidence: Evidence[];
}

/**
 * Judges the warm-up markers seen so far. Call it once the source is ready: a paused engine generates
 * nothing more, so what is missing then was missing before ready-for-snapshot.
 */
export function judgeWarmup(tracker: RankTracker, expected: readonly string[]): Verdict {
  const evidence: Evidence[] = [];
  const missing: string[] = [];
  const failed: string[] = [];
  let firstStart: number | undefined;
  let lastDone: number | undefined;
  for (const rank of expected) {
    const start = tracker.hit(rank, 'warmup-start', expected);
    const done = tracker.hit(rank, 'warmup-done', expected);
    const bad = tracker.hit(rank, 'warmup-failed', expected) ?? tracker.hit(rank, 'warmup-skipped', expected);
    if (start) firstStart = Math.min(firstStart ?? start.at, start.at);
    if (done) {
      lastDone = Math.max(lastDone ?? done.at, done.at);
      evidence.push({ kind: 'log', rank, text: done.line });
    } else if (bad) {
      failed.push(rank);
      evidence.push({ kind: 'log', rank, text: bad.line });
    } else {
      missing.push(rank);
      evidence.push({ kind: 'note', rank, text: `no warm-up marker on ${rank} before ready-for-snapshot` });
    }
  }
  if (firstStart !== undefined && lastDone !== undefined) {
    evidence.push({ kind: 'timing', text: 'warm-up (first start to last completion)', valueMs: lastDone - firstStart });
  }
  const problem = [...failed, ...missing];
  if (problem.length === 0) {
    const took = firstStart !== undefined && lastDone !== undefined ? ` in ${formatSeconds((lastDone - firstStart) / 1000)}` : '';
    return { state: 'passed', verdict: `warm-up completed on every rank (${expected.join(', ')})${took} before ready-for-snapshot`, evidence };
  }
  const parts: string[] = [];
  if (missing.length) parts.push(`no warm-up on ${missing.join(', ')}`);
  if (failed.length) parts.push(`warm-up failed or was skipped on ${failed.join(', ')}`);
  return { state: 'warned', verdict: `${parts.join('; ')} before ready-for-snapshot: ${MISSING_WARMUP_COST}`, evidence };
}

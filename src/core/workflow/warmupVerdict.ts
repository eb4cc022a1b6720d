/**
 * The warm-up verdict: a real generation must have run on every data-parallel rank before
 * `ready-for-snapshot`, because whatever was not exercised before capture is paid for by every
 * restored worker (dynamo-snapshot.md §12 #2).
 *
 * Upstream logs the warm-up once, from the main process, for every locally managed DP rank together
 * (vLLM: one asyncio.gather over get_dp_range_for_worker(); SGLang: one async_generate with a prompt
 * per DP rank — docs/compatibility.md). So a main-process warm-up counts for every expected rank; a
 * rank's own lines during it are shown as extra evidence and are never required. Without one, each
 * rank must show its own warm-up (the per-rank shape older revisions and custom backends print).
 */
import type { MarkerHit, RankTracker } from './ranks';
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
  const main = tracker.rank('main').seen;
  if (expected.length > 1 && (main['warmup-done'] || main['warmup-failed'] || main['warmup-skipped'] || main['warmup-not-applicable'])) {
    return judgeMainWarmup(tracker, expected);
  }
  const evidence: Evidence[] = [];
  const missing: string[] = [];
  const failed: string[] = [];
  let firstStart: number | undefined;
  let lastDone: number | undefined;
  for (const rank of expected) {
    const start = tracker.hit(rank, 'warmup-start', expected);
    const done = tracker.hit(rank, 'warmup-done', expected);
    const bad = tracker.hit(rank, 'warmup-failed', expected) ?? tracker.hit(rank, 'warmup-skipped', expected);
    const notApplicable = tracker.hit(rank, 'warmup-not-applicable', expected);
    if (start) firstStart = Math.min(firstStart ?? start.at, start.at);
    if (done) {
      lastDone = Math.max(lastDone ?? done.at, done.at);
      evidence.push({ kind: 'log', rank, text: done.line });
    } else if (notApplicable) {
      evidence.push({ kind: 'log', rank, text: notApplicable.line });
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
    const skipped = expected.every((r) => tracker.hit(r, 'warmup-not-applicable', expected) && !tracker.hit(r, 'warmup-done', expected));
    if (skipped) return { state: 'passed', verdict: 'no warm-up needed: the backend reports a non-generation model (no generation path to exercise before capture)', evidence };
    const took = firstStart !== undefined && lastDone !== undefined ? ` in ${formatSeconds((lastDone - firstStart) / 1000)}` : '';
    return { state: 'passed', verdict: `warm-up completed on every rank (${expected.join(', ')})${took} before ready-for-snapshot`, evidence };
  }
  const parts: string[] = [];
  if (missing.length) parts.push(`no warm-up on ${missing.join(', ')}`);
  if (failed.length) parts.push(`warm-up failed or was skipped on ${failed.join(', ')}`);
  return { state: 'warned', verdict: `${parts.join('; ')} before ready-for-snapshot: ${MISSING_WARMUP_COST}`, evidence };
}

/** The main process logged the warm-up for every local DP rank at once. */
function judgeMainWarmup(tracker: RankTracker, expected: readonly string[]): Verdict {
  const main = tracker.rank('main').seen;
  const start = main['warmup-start'];
  const done = main['warmup-done'];
  const evidence: Evidence[] = []; // the warm-up step already shows the start line
  const end: MarkerHit | undefined = done ?? main['warmup-failed'] ?? main['warmup-skipped'] ?? main['warmup-not-applicable'];
  if (end) evidence.push({ kind: 'log', rank: 'main', text: end.line });
  if (start && done) evidence.push({ kind: 'timing', text: 'warm-up (main process, every local DP rank)', valueMs: done.at - start.at });
  for (const rank of expected) {
    const own = tracker.rank(rank);
    const ownDone = own.seen['warmup-done'];
    if (ownDone) evidence.push({ kind: 'log', rank, text: ownDone.line });
    else if (own.warmupActivity.lines > 0) evidence.push({ kind: 'note', rank, text: `${rank} logged ${own.warmupActivity.lines} line(s) during the warm-up, e.g. ${own.warmupActivity.first}` });
    else evidence.push({ kind: 'note', rank, text: `${rank} logged nothing of its own during the warm-up (not required: the main process warms up every local DP rank)` });
  }
  if (done) {
    const took = start ? ` in ${formatSeconds((done.at - start.at) / 1000)}` : '';
    return { state: 'passed', verdict: `warm-up completed${took} by the main process for every rank (${expected.join(', ')}) before ready-for-snapshot`, evidence };
  }
  if (main['warmup-not-applicable'] && !main['warmup-failed'] && !main['warmup-skipped']) {
    return { state: 'passed', verdict: 'no warm-up needed: the backend reports a non-generation model (no generation path to exercise before capture)', evidence };
  }
  return { state: 'warned', verdict: `the main process's warm-up failed or was skipped for every DP rank (${expected.join(', ')}) before ready-for-snapshot: ${MISSING_WARMUP_COST}`, evidence };
}

/** The expected ranks whose warm-up has not finished yet: none once the main process finished it for all of them. */
export function warmupPending(tracker: RankTracker, expected: readonly string[]): string[] {
  if (expected.length > 1 && tracker.rank('main').seen['warmup-done']) return [];
  return expected.filter((r) => !tracker.hit(r, 'warmup-done', expected) && !tracker.hit(r, 'warmup-not-applicable', expected));
}

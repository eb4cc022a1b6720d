/**
 * A source kept running between palette commands outlives the window (it was started detached, in its
 * own session, by the agent's supervisor). What the next window needs to pick it up again is saved
 * here as plain JSON (the extension keeps it in workspaceState): the handle, how far the session had
 * come, the log offsets (so following resumes with no line lost or repeated) and the lifecycle lines
 * the verdicts are judged on. `reattachSource` asks the worker whether that run still lives.
 */
import type { LogOffsets, SourceHandle } from '../worker/types';
import type { SessionStage, WorkerSession } from './session';

export const SAVED_SOURCE_VERSION = 1;

export interface SavedSource {
  version: typeof SAVED_SOURCE_VERSION;
  worker: string;
  /** The profile as it was (JSON): a changed profile does not reattach to a source started under the old one. */
  profile: string;
  handle: SourceHandle;
  stage: Exclude<SessionStage, 'idle'>;
  offsets: LogOffsets;
  startedAt?: number;
  capturedAt?: number;
  restoreRequestedAt?: number;
  restoreExitMark: number;
  /** The lines that carried a lifecycle marker, with when they were seen. */
  markers: { line: string; at: number }[];
  savedAt: number;
}

/** What to save for `session`, or undefined when it keeps nothing running. */
export function saveSource(session: WorkerSession, now = Date.now()): SavedSource | undefined {
  const h = session.handle;
  if (!h || session.stage === 'idle' || session.allExited || session.profile.kubernetes) return undefined;
  const markers = session.tracker
    .all()
    .flatMap((r) => Object.values(r.seen).map((hit) => ({ line: hit!.line, at: hit!.at })))
    .sort((a, b) => a.at - b.at);
  return {
    version: SAVED_SOURCE_VERSION,
    worker: session.profile.name,
    profile: JSON.stringify(session.profile),
    handle: { ...h, logFiles: [...h.logFiles] },
    stage: session.stage,
    offsets: { ...session.offsets },
    startedAt: session.startedAt,
    capturedAt: session.capturedAt,
    restoreRequestedAt: session.restoreRequestedAt,
    restoreExitMark: session.restoreExitMark,
    markers,
    savedAt: now,
  };
}

function isSaved(x: unknown): x is SavedSource {
  const s = x as SavedSource | undefined;
  return typeof s === 'object' && s !== null && s.version === SAVED_SOURCE_VERSION && typeof s.handle?.runId === 'string' && typeof s.offsets === 'object' && Array.isArray(s.markers);
}

export type ReattachOutcome =
  | { kind: 'reattached'; handle: SourceHandle }
  | { kind: 'gone' | 'profile-changed' | 'invalid' | 'busy'; why: string };

/**
 * Finds the saved source on the worker again and continues the session from it: stage, timings,
 * markers, and a follow from the saved offsets. Leaves the session alone unless it reattached.
 */
export async function reattachSource(session: WorkerSession, saved: unknown, signal: AbortSignal): Promise<ReattachOutcome> {
  if (!isSaved(saved)) return { kind: 'invalid', why: 'the saved source is from another version or damaged' };
  if (session.handle) return { kind: 'busy', why: 'the session already has a source' };
  if (saved.profile !== JSON.stringify(session.profile)) return { kind: 'profile-changed', why: `worker profile "${saved.worker}" changed since the source was started; it is not reattached (stop it with Disconnect after reattaching under the old profile, or let it be)` };
  const found = await session.connection.reattach(saved.handle.runId, signal);
  if (!found) return { kind: 'gone', why: `the source started before the reload (run ${saved.handle.runId}) is no longer running` };
  session.resetForNewSource();
  session.handle = { ...saved.handle, ...found };
  session.stage = saved.stage;
  session.startedAt = saved.startedAt;
  session.capturedAt = saved.capturedAt;
  session.restoreRequestedAt = saved.restoreRequestedAt;
  session.restoreExitMark = saved.restoreExitMark;
  Object.assign(session.offsets, saved.offsets);
  for (const m of saved.markers) session.tracker.push(m.line, m.at);
  session.reattached = true;
  session.startFollowing();
  return { kind: 'reattached', handle: session.handle };
}

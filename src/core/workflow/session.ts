/**
 * One worker as the workflow sees it across runs: the connection, the source it started, and
 * everything the worker has reported (log lines per rank, sentinels, exits, the endpoint). Runs come
 * and go ("Start Source", then "Run Warm-up and Capture", then "Restore"); the session carries the
 * state between them. No vscode import: the extension and the CLI both drive it.
 */
import type { AgentEvent, CaptureResultEvent, HelloEvent, ProcessExitEvent } from '../protocol/agentEvents';
import type { LogOffsets, ProtocolProblem, SourceHandle, WorkerConnection } from '../worker/types';
import type { WorkerProfile } from '../settings/workerProfile';
import type { KubeRunSource, KubeSeen } from './kube/steps';
import { splitLines } from './logLine';
import { RankTracker, type MarkerHit } from './ranks';
import type { Evidence, RunEvent } from './types';
import { Conditions } from './waiter';

/** How far the session's source has come; decides where the next run starts. */
export type SessionStage = 'idle' | 'started' | 'captured' | 'exited' | 'restored';

export interface ExitRecord extends ProcessExitEvent {
  at: number;
}

export interface SessionListener {
  /** Every validated agent event, in arrival order (the log router and views hang off this). */
  onAgentEvent?(e: AgentEvent, at: number): void;
  onProblem?(p: ProtocolProblem): void;
}

/** A capture request sent ahead of readiness (the agent releases the source the moment it is ready). */
export interface ArmedCapture {
  promise: Promise<CaptureResultEvent>;
  abort(): void;
  /** Phase evidence collected while it waited and ran. */
  evidence: Evidence[];
  /** Agent clock (ms) of phase ends, to measure the ready → release reaction on the worker. */
  phaseEnds: Record<string, number>;
}

export class WorkerSession {
  readonly tracker = new RankTracker();
  readonly conditions = new Conditions();
  hello?: HelloEvent;
  handle?: SourceHandle;
  stage: SessionStage = 'idle';
  /** When the current source was started (local clock). */
  startedAt?: number;
  /** When capture returned (snapshot-complete written). */
  capturedAt?: number;
  /** The capture itself ended the source (kill generation): its SIGKILL is the expected outcome. */
  sourceKilledByCapture?: boolean;
  /** When the last restore was requested. */
  restoreRequestedAt?: number;
  /** `exitCount` when the last restore was requested (exits after it belong to the restored worker). */
  restoreExitMark = 0;
  readonly sentinels = new Map<string, { action: 'created' | 'removed'; at: number }>();
  readonly exits: ExitRecord[] = [];
  endpoint?: { url: string; at: number };
  readonly offsets: LogOffsets = {};
  readonly warnings: { type: 'warning' | 'error'; message: string; at: number }[] = [];
  followEnded = false;
  /** Set by the runner when this run goes on to capture; taken by the capture step. */
  armedCapture?: ArmedCapture;
  /** Kubernetes observe mode (`profile.kubernetes`): kubectl / snapshotctl access, set by whoever builds the session. */
  kube?: KubeRunSource;
  /** The last cluster observation of a kubernetes observe-mode run. */
  kubeLast?: KubeSeen;
  /** Set when the source was found again after a window reload (reattach), not started by this session. */
  reattached = false;
  /** Where RunEvents of the run now in progress go; set by the runner. */
  emitter?: { runId: string; emit: (e: RunEvent) => void };
  private followCtl?: AbortController;
  private followDone?: Promise<void>;
  private readonly listeners = new Set<SessionListener>();

  constructor(
    readonly profile: WorkerProfile,
    readonly connection: WorkerConnection,
    private readonly now: () => number = Date.now,
  ) {}

  listen(l: SessionListener): () => void {
    this.listeners.add(l);
    return () => this.listeners.delete(l);
  }

  /** Applies one agent event (from follow, capture or restore) and wakes the waiters. */
  apply(e: AgentEvent): void {
    const at = this.now();
    for (const l of this.listeners) l.onAgentEvent?.(e, at);
    switch (e.type) {
      case 'log':
        this.applyLog(e.file, e.data, e.end, at);
        break;
      case 'sentinel':
        this.sentinels.set(e.name, { action: e.action, at });
        break;
      case 'process_exit':
        this.exits.push({ ...e, at });
        break;
      case 'endpoint':
        this.endpoint = { url: e.url, at };
        break;
      case 'warning':
      case 'error':
        this.warnings.push({ type: e.type, message: e.message, at });
        break;
      default:
        break;
    }
    this.conditions.notify();
  }

  private applyLog(file: string, data: string, end: number, at: number): void {
    this.offsets[file] = Math.max(this.offsets[file] ?? 0, end);
    const byRank = new Map<string, string[]>();
    const hits: MarkerHit[] = [];
    for (const line of splitLines(data)) {
      const hit = this.tracker.push(line, at);
      if (hit) hits.push(hit);
      const rank = this.tracker.lastRank;
      let list = byRank.get(rank);
      if (!list) byRank.set(rank, (list = []));
      list.push(line);
    }
    const em = this.emitter;
    if (!em) return;
    for (const [rank, lines] of byRank) em.emit({ type: 'log-lines', runId: em.runId, rank, lines });
    for (const h of hits) em.emit({ type: 'rank-marker', runId: em.runId, rank: h.rank, phase: h.def.phase, at: h.at, line: h.line });
  }

  /** The last exit of a process in `role` among the exits after the first `afterCount` (see `exitCount`). */
  exitOf(role: ProcessExitEvent['role'], afterCount = 0): ExitRecord | undefined {
    for (let i = this.exits.length - 1; i >= afterCount; i--) {
      const x = this.exits[i]!;
      if (x.role === role) return x;
    }
    return undefined;
  }

  /** How many exits were seen so far: a mark to ask later for exits that came after it. */
  get exitCount(): number {
    return this.exits.length;
  }

  sentinel(name: string, action: 'created' | 'removed' = 'created', since = 0): { at: number } | undefined {
    const s = this.sentinels.get(name);
    return s && s.action === action && s.at >= since ? s : undefined;
  }

  /** Streams the source's events in the background until it ends or `stopFollowing` is called. */
  startFollowing(): void {
    if (!this.handle) throw new Error('no source to follow');
    this.followCtl?.abort();
    const ctl = new AbortController();
    this.followCtl = ctl;
    this.followEnded = false;
    const handle = this.handle;
    this.followDone = (async () => {
      try {
        const stream = this.connection.follow(handle, {
          offsets: { ...this.offsets },
          signal: ctl.signal,
          onProblem: (p) => this.listeners.forEach((l) => l.onProblem?.(p)),
        });
        for await (const e of stream) {
          if (ctl.signal.aborted) break;
          this.apply(e);
        }
      } catch (e) {
        if (!ctl.signal.aborted) {
          const message = e instanceof Error ? e.message : String(e);
          this.warnings.push({ type: 'error', message: `log stream failed: ${message}`, at: this.now() });
        }
      } finally {
        if (this.followCtl === ctl) {
          this.followEnded = true;
          this.conditions.notify();
        }
      }
    })();
  }

  async stopFollowing(): Promise<void> {
    this.followCtl?.abort();
    this.followCtl = undefined;
    await this.followDone?.catch(() => undefined);
  }

  /** Cancels a capture request that is still waiting for readiness. */
  disarmCapture(): void {
    this.armedCapture?.abort();
    this.armedCapture = undefined;
  }

  /**
   * True when nothing this session started can still run: the source's whole tree exited (the agent
   * reports an exit once every process of it is reaped) and no restore has been asked for since.
   */
  get allExited(): boolean {
    return this.stage === 'exited' && this.restoreRequestedAt === undefined;
  }

  /** Stops everything this session started on the worker (source and restored processes). */
  async stopSource(graceMs = 3000): Promise<void> {
    this.disarmCapture();
    const handle = this.handle;
    if (handle) await this.connection.stop(handle, graceMs);
    await this.stopFollowing();
    this.stage = 'idle';
    this.reattached = false;
  }

  /** Lets go of the worker without stopping the source (a window reload): the follow ends, the connection closes. */
  async detach(): Promise<void> {
    this.disarmCapture();
    await this.stopFollowing();
    await this.connection.dispose();
  }

  /** Stops what runs and closes the connection. */
  async dispose(): Promise<void> {
    await this.stopSource().catch(() => undefined);
    await this.connection.dispose();
  }

  /** Forgets the previous source's state before a new one starts (markers, sentinels, exits, offsets). */
  resetForNewSource(): void {
    this.reattached = false;
    this.startedAt = undefined;
    this.capturedAt = undefined;
    this.sourceKilledByCapture = undefined;
    this.restoreRequestedAt = undefined;
    this.sentinels.clear();
    this.exits.length = 0;
    this.endpoint = undefined;
    for (const k of Object.keys(this.offsets)) delete this.offsets[k];
    this.tracker.clear();
  }
}

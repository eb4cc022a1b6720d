/**
 * The contract between the workflow (issue #5) and the worker connection layer (issue #4).
 * A `WorkerConnection` reaches one worker through one transport (local, ssh, kubernetes) and drives
 * the worker-side agent there. Everything is cancellable through an AbortSignal; every answer from
 * the worker has been validated (agentEvents.ts) before it reaches the caller.
 *
 * Owner: #4. Add methods or optional fields freely; keep these signatures working for #5.
 */
import type {
  AgentEvent,
  CaptureResultEvent,
  HelloEvent,
  RestoreResultEvent,
  StartedEvent,
} from '../protocol/agentEvents';
import type { WorkerProfile } from '../settings/workerProfile';

/** Where a source run lives on the worker: enough to reattach after a window reload. */
export interface SourceHandle {
  runId: string;
  runDir: string;
  controlDir: string;
  pid: number;
  pgid: number;
  logFiles: string[];
}

/** Byte offsets per log file, so a reconnect resumes with no line lost or repeated. */
export type LogOffsets = Record<string, number>;

/** Something wrong with the worker's output that was skipped (reported, never fatal). */
export interface ProtocolProblem {
  kind: 'oversized' | 'not-json' | 'unknown-type' | 'invalid' | 'version' | 'stderr';
  detail: string;
}

export interface FollowOptions {
  offsets?: LogOffsets;
  signal: AbortSignal;
  onProblem?: (p: ProtocolProblem) => void;
}

export interface WorkerConnection {
  readonly profile: WorkerProfile;
  /** Connects (for ssh: the ControlMaster) and runs the agent's hello. */
  hello(signal: AbortSignal): Promise<HelloEvent>;
  /** Prepares a fresh control dir and starts the backend detached (own process group, survives a reload). */
  startSource(runId: string, signal: AbortSignal): Promise<SourceHandle & { started: StartedEvent }>;
  /** Finds a source started earlier (by runId) if it is still there. */
  reattach(runId: string, signal: AbortSignal): Promise<SourceHandle | undefined>;
  /** Streams log chunks, sentinel changes and process exits until the signal aborts or the source tree is gone. */
  follow(handle: SourceHandle, options: FollowOptions): AsyncIterable<AgentEvent>;
  /** Captures in the profile's capture mode; phase events go to onEvent as they happen. */
  capture(handle: SourceHandle, signal: AbortSignal, onEvent?: (e: AgentEvent) => void): Promise<CaptureResultEvent>;
  /** Restores (criu) or exercises the restore path (protocol); phase events go to onEvent. */
  restore(handle: SourceHandle, signal: AbortSignal, onEvent?: (e: AgentEvent) => void): Promise<RestoreResultEvent>;
  /** Stops everything the run started, by process group (TERM, then KILL after graceMs). */
  stop(handle: SourceHandle, graceMs?: number): Promise<void>;
  /** Closes shared connections (ssh -O exit); leaves detached engines running. */
  dispose(): Promise<void>;
}

/** Tool paths and locations the connection needs besides the profile (from settings or CLI flags). */
export interface ConnectionEnvironment {
  sshPath: string;
  sshConfigFile?: string;
  kubectlPath: string;
  kubeconfig?: string;
  /** Root of the installed extension (or repo): media/agent and media/engine live under it. */
  extensionRoot: string;
  /** Local scratch dir (ControlMaster sockets, local runs). */
  scratchDir: string;
}

export type ConnectionFactory = (profile: WorkerProfile, env: ConnectionEnvironment) => WorkerConnection;

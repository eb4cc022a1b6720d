/**
 * The transport layer: run an argv on the worker, with stdin/stdout/stderr as streams. Everything
 * else (detaching the engine, following logs by offset, watching the control dir, capture and
 * restore) is done by the worker-side agent that runs through it, so the three transports stay
 * small and behave the same.
 */
import type { Readable, Writable } from 'node:stream';

export interface ExitStatus {
  code: number | null;
  signal: string | null;
}

/** A process on the worker whose streams are live (nothing buffered on our side). */
export interface RemoteProcess {
  readonly stdin: Writable;
  readonly stdout: Readable;
  readonly stderr: Readable;
  /** Resolves when the local side (ssh, kubectl or the process itself) has exited. */
  readonly exited: Promise<ExitStatus>;
  /** Kills the local side. For ssh/kubectl the remote side notices its stdin closing. */
  kill(signal?: NodeJS.Signals): void;
}

export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

export interface RunOptions {
  input?: string | Buffer;
  signal?: AbortSignal;
  timeoutMs?: number;
}

export interface WorkerTransport {
  readonly kind: 'local' | 'ssh' | 'kubernetes';
  /** For messages: "local", "ssh gpu-box", "pod ns/name". */
  readonly label: string;
  /** Makes sure the worker can be reached (ssh: starts the shared ControlMaster). Throws TransportError. */
  connect(signal?: AbortSignal): Promise<void>;
  /** Starts argv on the worker with piped streams; never through a local shell. */
  spawn(argv: readonly string[]): RemoteProcess;
  /** Runs a short command to completion and collects its output. */
  run(argv: readonly string[], options?: RunOptions): Promise<RunResult>;
  /** A clear error when an exit status means the worker was not reached (ssh 255, kubectl errors). */
  explainFailure?(status: ExitStatus, stderr: string): TransportError | undefined;
  /** Closes shared connections; processes started detached on the worker keep running. */
  dispose(): Promise<void>;
}

/** The worker could not be reached at all (as opposed to a command failing there). */
export class TransportError extends Error {
  constructor(
    message: string,
    readonly hint: string,
    readonly detail = '',
  ) {
    super(`${message}. ${hint}`);
    this.name = 'TransportError';
  }
}

/**
 * WorkerConnection on top of a transport and the worker-side agent: every method is one agent
 * subcommand whose JSON-lines events are validated (agentEvents.ts) and relayed.
 */
import path from 'node:path';
import {
  LOG_FRAME_FORMAT,
  type AgentEvent,
  type CaptureResultEvent,
  type HelloEvent,
  type RestoreResultEvent,
  type StartedEvent,
} from '../core/protocol/agentEvents';
import { protocolGeneration, type WorkerProfile } from '../core/settings/workerProfile';
import type {
  ConnectionEnvironment,
  FollowOptions,
  ProtocolProblem,
  SourceHandle,
  WorkerConnection,
} from '../core/worker/types';
import { readAgentScript } from './agentLoader';
import { startAgent, type AgentSession } from './agentSession';
import type { WorkerTransport } from './types';

/** The agent answered but the operation failed on the worker (bad config, run gone, capture failed…). */
export class AgentCommandError extends Error {
  constructor(
    message: string,
    readonly code?: string,
  ) {
    super(message);
    this.name = 'AgentCommandError';
  }
}

const RUN_ID = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$/;

export class AgentConnection implements WorkerConnection {
  private script: Buffer | undefined;
  private connected = false;
  private connecting: Promise<void> | undefined;

  constructor(
    readonly profile: WorkerProfile,
    private readonly env: ConnectionEnvironment,
    readonly transport: WorkerTransport,
    /** Problems with the worker's output (skipped lines, stderr); the workflow shows them as warnings. */
    private readonly onProblem: (p: ProtocolProblem) => void = () => undefined,
  ) {}

  async hello(signal: AbortSignal): Promise<HelloEvent> {
    const cfg = { criuPath: this.profile.criu.path, cudaCheckpointPath: this.profile.criu.cudaCheckpointPath };
    return this.expect('hello', cfg, signal, (e): e is HelloEvent => e.type === 'hello');
  }

  async startSource(runId: string, signal: AbortSignal): Promise<SourceHandle & { started: StartedEvent }> {
    if (!RUN_ID.test(runId)) throw new AgentCommandError(`run id must be letters, digits, "_", "." or "-": ${JSON.stringify(runId)}`, 'bad-config');
    const cfg = {
      ...this.runLocation(runId),
      command: this.profile.command,
      env: this.profile.env,
      cwd: this.profile.cwd,
      controlDir: this.profile.controlDir,
    };
    const started = await this.expect('start', cfg, signal, (e): e is StartedEvent => e.type === 'started');
    return { ...toHandle(runId, started), started };
  }

  async reattach(runId: string, signal: AbortSignal): Promise<SourceHandle | undefined> {
    if (!RUN_ID.test(runId)) return undefined;
    try {
      const started = await this.expect('status', this.runLocation(runId), signal, (e): e is StartedEvent => e.type === 'started');
      return toHandle(runId, started);
    } catch (e) {
      if (e instanceof AgentCommandError && (e.code === 'not-running' || e.code === 'no-run')) return undefined;
      throw e;
    }
  }

  async *follow(handle: SourceHandle, options: FollowOptions): AsyncIterable<AgentEvent> {
    const { signal } = options;
    if (signal.aborted) return;
    // Framed log chunks: raw bytes after a small header, no JSON escaping (agentEvents.ts LOG_FRAME_FORMAT).
    const cfg = { runDir: handle.runDir, offsets: options.offsets ?? {}, logFrames: LOG_FRAME_FORMAT };
    const session = await this.session('follow', cfg, options.onProblem, signal);
    const onAbort = () => session.close();
    signal.addEventListener('abort', onAbort, { once: true });
    const killTimer = () => setTimeout(() => session.kill(), 3000).unref();
    signal.addEventListener('abort', killTimer, { once: true });
    try {
      for await (const e of session.events()) {
        if (e.type === 'done') {
          if (!e.ok && !signal.aborted) throw new AgentCommandError(e.error ?? 'follow ended with an error');
          continue;
        }
        yield e;
      }
      if (!signal.aborted) throw new AgentCommandError(`the log stream from ${this.transport.label} ended unexpectedly; follow again with the last offsets to resume`, 'stream-ended');
    } finally {
      signal.removeEventListener('abort', onAbort);
      signal.removeEventListener('abort', killTimer);
      session.close();
    }
  }

  async capture(handle: SourceHandle, signal: AbortSignal, onEvent?: (e: AgentEvent) => void): Promise<CaptureResultEvent> {
    const p = this.profile;
    const cfg = {
      runDir: handle.runDir,
      mode: p.captureMode,
      criuPath: p.criu.path,
      cudaCheckpointPath: p.criu.cudaCheckpointPath,
      extraArgs: p.criu.extraArgs,
      criuOptions: p.criu.options,
      generation: protocolGeneration(p),
      captureCommand: p.captureCommand,
      readyTimeoutS: p.timeouts.readySeconds,
      timeoutS: p.timeouts.captureSeconds,
    };
    return this.expect('capture', cfg, signal, (e): e is CaptureResultEvent => e.type === 'capture_result', onEvent, true);
  }

  async restore(handle: SourceHandle, signal: AbortSignal, onEvent?: (e: AgentEvent) => void): Promise<RestoreResultEvent> {
    const p = this.profile;
    const cfg = {
      runDir: handle.runDir,
      mode: p.captureMode === 'criu' ? 'criu' : 'protocol',
      criuPath: p.criu.path,
      cudaCheckpointPath: p.criu.cudaCheckpointPath,
      restoreExtraArgs: p.criu.restoreExtraArgs,
      criuOptions: p.criu.options,
      generation: protocolGeneration(p),
      restoreContext: p.restoreContextEnv,
      readyTimeoutS: p.timeouts.readySeconds,
      exitTimeoutS: p.timeouts.exitSeconds,
      timeoutS: p.timeouts.restoreSeconds,
    };
    return this.expect('restore', cfg, signal, (e): e is RestoreResultEvent => e.type === 'restore_result', onEvent, true);
  }

  async stop(handle: SourceHandle, graceMs = 5000): Promise<void> {
    const signal = AbortSignal.timeout(graceMs + 30_000);
    await this.expect('stop', { runDir: handle.runDir, graceMs }, signal, (_e): _e is AgentEvent => false, undefined, false, true);
  }

  async dispose(): Promise<void> {
    // The shared connection (ssh ControlMaster) is closed: a later command must set it up again.
    this.connected = false;
    await this.transport.dispose();
  }

  /** Where runs live on the worker: the local scratch dir here, the agent's default (~/.cache/…) elsewhere. */
  private runLocation(runId: string): { runId: string; runsBase?: string } {
    return this.transport.kind === 'local' ? { runId, runsBase: path.join(this.env.scratchDir, 'runs') } : { runId };
  }

  private async session(sub: string, cfg: unknown, onProblem?: (p: ProtocolProblem) => void, signal?: AbortSignal): Promise<AgentSession> {
    if (!this.connected) {
      // One connect at a time: two agent runs asked for together (Connect while a run starts) must not
      // both start an ssh ControlMaster — the second would stay behind as an orphan ssh -f -N.
      this.connecting ??= this.transport.connect(signal).finally(() => (this.connecting = undefined));
      await this.connecting;
      this.connected = true;
    }
    this.script ??= readAgentScript(this.env.extensionRoot);
    const report = (p: ProtocolProblem) => {
      this.onProblem(p);
      onProblem?.(p);
    };
    return startAgent(this.transport, this.profile.python, this.script, sub, cfg, report);
  }

  /**
   * Runs one subcommand to its `done` and returns the event `pick` selects. `resultIsAnswer`: the
   * picked event is the answer even when done.ok is false (a failed capture is a result, not an error).
   */
  private async expect<T extends AgentEvent>(
    sub: string,
    cfg: unknown,
    signal: AbortSignal,
    pick: (e: AgentEvent) => e is T,
    onEvent?: (e: AgentEvent) => void,
    resultIsAnswer = false,
    doneIsAnswer = false,
  ): Promise<T> {
    signal.throwIfAborted();
    const session = await this.session(sub, cfg, undefined, signal);
    const onAbort = () => {
      session.close();
      setTimeout(() => session.kill(), 5000).unref();
    };
    signal.addEventListener('abort', onAbort, { once: true });
    let picked: T | undefined;
    let lastError: { message: string; code?: string } | undefined;
    try {
      for await (const e of session.events()) {
        onEvent?.(e);
        if (pick(e)) picked = e;
        else if (e.type === 'error') lastError = { message: e.message, code: e.code };
        else if (e.type === 'done') {
          session.close();
          if (picked && (e.ok || resultIsAnswer)) return picked;
          if (e.ok && doneIsAnswer) return undefined as unknown as T;
          throw new AgentCommandError(lastError?.message ?? e.error ?? `${sub} failed`, lastError?.code);
        }
      }
    } finally {
      signal.removeEventListener('abort', onAbort);
      session.close();
    }
    signal.throwIfAborted();
    throw new AgentCommandError(`the agent's ${sub} on ${this.transport.label} ended without an answer`, 'no-answer');
  }
}

function toHandle(runId: string, s: StartedEvent): SourceHandle {
  return { runId, runDir: s.runDir, controlDir: s.controlDir, pid: s.pid, pgid: s.pgid, logFiles: s.logFiles };
}

/**
 * A WorkerConnection that replays a recorded event sequence: what the agent sent after start, after
 * capture and after restore, each event after a delay. Lets the state machine be tested on exactly
 * the sequences a real worker produces (clean run, missing warm-up, SIGSEGV exit, …) without one.
 */
import type { AgentEvent, CaptureResultEvent, HelloEvent, RestoreResultEvent, StartedEvent } from '../../../../src/core/protocol/agentEvents';
import { WorkerProfile, type WorkerProfileInput } from '../../../../src/core/settings/workerProfile';
import type { FollowOptions, SourceHandle, WorkerConnection } from '../../../../src/core/worker/types';

/** [delay ms before the event, event] */
export type Step = [number, AgentEvent];

export interface Script {
  hello?: Partial<HelloEvent>;
  afterStart: Step[];
  capture?: { delayMs?: number; result?: Partial<CaptureResultEvent>; phases?: AgentEvent[] };
  afterCapture?: Step[];
  restore?: { delayMs?: number; result?: Partial<RestoreResultEvent> };
  afterRestore?: Step[];
}

const T = () => Date.now();
const base = { v: 1 as const, t: 0 };

export function helloEvent(over: Partial<HelloEvent> = {}): HelloEvent {
  return {
    ...base, t: T(), type: 'hello', agentVersion: '0.1.0', python: '3.11.7', platform: 'Linux-6.18', hostname: 'worker-1', uid: 0, isRoot: true,
    gpus: [], cudaCheckpoint: { present: false }, criu: { present: false }, ...over,
  };
}

export function sentinel(name: 'ready-for-snapshot' | 'snapshot-complete' | 'restore-complete', action: 'created' | 'removed' = 'created'): AgentEvent {
  return { ...base, t: T(), type: 'sentinel', name, action };
}

export function exit(role: 'source' | 'restored', code: number | null, signal: string | null = null, pid = 4242): AgentEvent {
  return { ...base, t: T(), type: 'process_exit', pid, role, code, signal };
}

export function endpoint(url: string): AgentEvent {
  return { ...base, t: T(), type: 'endpoint', url };
}

const offsets = new Map<string, number>();
export function log(file: string, ...lines: string[]): AgentEvent {
  const data = lines.map((l) => l + '\n').join('');
  const start = offsets.get(file) ?? 0;
  offsets.set(file, start + data.length);
  return { ...base, t: T(), type: 'log', file, start, end: start + data.length, data };
}

export function phase(name: string, durationMs: number): AgentEvent {
  return { ...base, t: T(), type: 'phase', phase: name, state: 'end', durationMs };
}

/** The stand-in engine's lines up to ready-for-snapshot (2 DP ranks, vLLM prefixes), as recorded. */
export function standinStart(o: { skipWarmupRank?: number; dp?: number; warmupHangRank?: number } = {}): Step[] {
  const dp = o.dp ?? 2;
  const main = (m: string) => `2026-11-30T06:00:00.000000Z  INFO dynamo_standin: ${m}`;
  const rank = (d: number, m: string) => `\x1b[36m(EngineCore_DP${d} pid=${5000 + d})\x1b[0m ${m}`;
  const steps: Step[] = [[5, log('source.log', main('Snapshot mode enabled (watcher-driven signals)'))]];
  for (let d = 0; d < dp; d++) steps.push([2, log('source.log', rank(d, `Loading model standin/tiny-model (rank ${d} of ${dp})`), rank(d, 'Model loaded: 16 MiB of weights'))]);
  for (let d = 0; d < dp; d++) {
    if (d === o.skipWarmupRank) continue;
    steps.push([2, log('source.log', rank(d, 'vLLM snapshot warmup starting'))]);
    if (d === o.warmupHangRank) return steps;
    steps.push([5, log('source.log', rank(d, 'vLLM snapshot warmup complete (2 tokens)'))]);
  }
  steps.push([2, log('source.log', main('Pausing model'), ...Array.from({ length: dp }, (_, d) => rank(d, 'Sleeping engine (level 1); KV cache freed')))]);
  steps.push([2, sentinel('ready-for-snapshot')]);
  steps.push([1, log('source.log', main('Ready for snapshot. Polling for sentinel in /tmp/run/control (snapshot-complete or restore-complete)'))]);
  return steps;
}

export function standinCaptureExit(mode: 'osexit' | 'systemexit'): Step[] {
  const main = (m: string) => `2026-11-30T06:00:01.000000Z  INFO dynamo_standin: ${m}`;
  if (mode === 'osexit') {
    return [
      [2, log('source.log', main('Snapshot completion sentinel detected'), main('Initial vLLM snapshot captured successfully; exiting without destroying the engine'))],
      [2, exit('source', 0)],
    ];
  }
  return [
    [2, log('source.log', main('Snapshot completion sentinel detected'), main('vLLM snapshot captured; raising SystemExit(0)'), main('Shutting down engine cores and destroying the CUDA context'))],
    [2, exit('source', null, 'SIGSEGV')],
  ];
}

export function standinRestore(url: string): Step[] {
  const main = (m: string) => `2026-11-30T06:00:02.000000Z  INFO dynamo_standin: ${m}`;
  return [
    [3, log('source.log', main('Restore sentinel detected'), main('Resuming model after restore'), main('Applied snapshot restore context runtime env'))],
    [2, log('source.log', main(`Serving on ${url}`))],
    [1, endpoint(url)],
  ];
}

export function profile(over: Partial<WorkerProfileInput> = {}): WorkerProfile {
  return WorkerProfile.parse({ name: 'scripted', command: ['python3', 'standin_engine.py'], dataParallelSize: 2, ...over });
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(new Error('aborted'));
    const t = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => {
      clearTimeout(t);
      reject(new Error('aborted'));
    }, { once: true });
  });
}

export class ScriptedConnection implements WorkerConnection {
  readonly calls: string[] = [];
  stopped = 0;
  /** Capture requests withdrawn before they released the source. */
  capturesAborted = 0;
  running = false;
  private queue: AgentEvent[] = [];
  private wake?: () => void;
  private closed = false;
  private ready = false;
  private readyWaiters: (() => void)[] = [];

  constructor(readonly profile: WorkerProfile, private readonly script: Script) {}

  async hello(): Promise<HelloEvent> {
    this.calls.push('hello');
    return helloEvent(this.script.hello);
  }

  async startSource(runId: string): Promise<SourceHandle & { started: StartedEvent }> {
    this.calls.push('start');
    this.running = true;
    this.ready = false;
    const started: StartedEvent = { ...base, t: T(), type: 'started', runDir: `/tmp/runs/${runId}`, controlDir: `/tmp/runs/${runId}/control`, pid: 4242, pgid: 4242, logFiles: ['source.log'] };
    void this.play(this.script.afterStart);
    return { runId, runDir: started.runDir, controlDir: started.controlDir, pid: 4242, pgid: 4242, logFiles: started.logFiles, started };
  }

  async reattach(): Promise<SourceHandle | undefined> {
    return undefined;
  }

  async *follow(_h: SourceHandle, o: FollowOptions): AsyncIterable<AgentEvent> {
    this.calls.push('follow');
    while (!o.signal.aborted && !this.closed) {
      const e = this.queue.shift();
      if (e) {
        yield e;
        continue;
      }
      await new Promise<void>((resolve) => {
        this.wake = resolve;
        o.signal.addEventListener('abort', () => resolve(), { once: true });
      });
    }
  }

  async capture(_h: SourceHandle, signal: AbortSignal, onEvent?: (e: AgentEvent) => void): Promise<CaptureResultEvent> {
    this.calls.push('capture');
    const c = this.script.capture ?? {};
    // Like the agent: wait for ready-for-snapshot, then release.
    if (!this.ready) {
      await new Promise<void>((resolve, reject) => {
        this.readyWaiters.push(resolve);
        signal.addEventListener('abort', () => {
          this.capturesAborted++;
          reject(new Error('aborted'));
        }, { once: true });
      });
    }
    await sleep(c.delayMs ?? 5, signal);
    for (const p of c.phases ?? [phase('write_snapshot_complete', 1)]) onEvent?.(p);
    const result: CaptureResultEvent = { ...base, t: T(), type: 'capture_result', ok: true, mode: 'protocol', timingsMs: { wait_ready: 0, write_snapshot_complete: 1 }, ...c.result };
    if (result.ok) void this.play(this.script.afterCapture ?? []);
    return result;
  }

  async restore(_h: SourceHandle, signal: AbortSignal): Promise<RestoreResultEvent> {
    this.calls.push('restore');
    const r = this.script.restore ?? {};
    await sleep(r.delayMs ?? 5, signal);
    const result: RestoreResultEvent = { ...base, t: T(), type: 'restore_result', ok: true, mode: 'protocol', pid: 4343, timingsMs: { write_restore_complete: 1 }, ...r.result };
    if (result.ok) void this.play(this.script.afterRestore ?? []);
    return result;
  }

  async stop(): Promise<void> {
    this.calls.push('stop');
    this.stopped++;
    this.running = false;
  }

  async dispose(): Promise<void> {
    this.closed = true;
    this.wake?.();
  }

  private async play(steps: Step[]): Promise<void> {
    for (const [delay, e] of steps) {
      await sleep(delay);
      if (!this.running) return; // a stopped source says nothing more
      this.queue.push(e);
      this.wake?.();
      if (e.type === 'sentinel' && e.name === 'ready-for-snapshot' && e.action === 'created') {
        this.ready = true;
        this.readyWaiters.splice(0).forEach((f) => f());
      }
    }
  }
}

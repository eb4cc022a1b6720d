/**
 * A scripted Dynamo snapshot cycle on Kubernetes, as the cluster shows it (dynamo-snapshot.md §5.2,
 * §5.3, §8): the checkpoint-source pod becomes Ready (ready-for-snapshot), the DynamoCheckpoint goes
 * Creating → Ready with the agent's `Checkpoint timing summary`, the source container terminates, the
 * restore-target pod's `nvidia.com/snapshot-restore-status.main` goes in_progress → completed with the
 * Restored condition, RestoreRequested/RestoreSucceeded events and the `Restore timing summary`, and it
 * logs `Resuming model after restore` and turns Ready. Capture and restore start by themselves (the
 * operator's Auto mode) or when snapshotctl is called. The same objects are served by the fake API
 * server (system tests) or read in memory (unit tests).
 */
import type { KubeRunSource } from '../../../../src/core/workflow/kube/steps';

export interface ScenarioPod {
  name: string;
  namespace: string;
  labels: Record<string, string>;
  annotations: Record<string, string>;
  conditions: unknown[];
  containerStatuses: unknown[];
  phase: string;
  log: string;
}

export interface ScenarioOptions {
  namespace?: string;
  /** Source container's exit code after the checkpoint (139: SIGSEGV in teardown). */
  exitCode?: number;
  checkpointFails?: boolean;
  restoreFails?: boolean;
  /** The restored pod logs "Resuming model after restore" (default true). */
  resumeLine?: boolean;
  /** Capture / restore wait for snapshotctl instead of starting by themselves. */
  viaSnapshotctl?: boolean;
  /** ms from start until the source is Ready; the phases after it follow `stepMs` apart. */
  readyMs?: number;
  stepMs?: number;
  /** Never becomes ready (timeout case). */
  neverReady?: boolean;
}

const iso = (t: number): string => new Date(t).toISOString();

export class KubeScenario {
  readonly ns: string;
  readonly source: ScenarioPod;
  readonly target: ScenarioPod;
  readonly agent: ScenarioPod;
  readonly events: unknown[] = [];
  readonly checkpoints: Record<string, unknown>;
  /** snapshotctl argv seen (unit: through source(); system: read from the fake's file by `readTriggers`). */
  triggers: string[][] = [];
  readTriggers?: () => string[][];
  private readonly t0 = Date.now();
  private capturedAt?: number;
  private restoreAt?: number;
  private restoredAt?: number;

  constructor(readonly o: ScenarioOptions = {}) {
    this.ns = o.namespace ?? 'llm';
    const running = (ready: boolean) => [{ name: 'main', ready, restartCount: 0, state: { running: { startedAt: iso(this.t0) } } }];
    this.source = {
      name: 'checkpoint-job-a1b2c3d4e5f60718-1-x7',
      namespace: this.ns,
      labels: { app: 'llama', 'nvidia.com/snapshot-is-checkpoint-source': 'true' },
      annotations: {},
      conditions: [{ type: 'Ready', status: 'False' }],
      containerStatuses: running(false),
      phase: 'Running',
      log: [
        'Snapshot mode enabled (watcher-driven signals)',
        '(EngineCore_DP0 pid=51) vLLM snapshot warmup starting',
        '(EngineCore_DP1 pid=52) vLLM snapshot warmup starting',
        '(EngineCore_DP0 pid=51) vLLM snapshot warmup complete (2 tokens)',
        '(EngineCore_DP1 pid=52) vLLM snapshot warmup complete (2 tokens)',
        'Pausing model',
        'Ready for snapshot. Polling for sentinel in /snapshot-control (snapshot-complete or restore-complete)',
      ].join('\n'),
    };
    this.target = {
      name: 'llama-restore-0',
      namespace: this.ns,
      labels: { app: 'llama', 'nvidia.com/snapshot-is-restore-target': 'true', 'nvidia.com/snapshot-checkpoint-id': 'a1b2c3d4e5f60718' },
      annotations: { 'nvidia.com/snapshot-target-containers': 'main' },
      conditions: [{ type: 'Ready', status: 'False' }],
      containerStatuses: running(false),
      phase: 'Running',
      log: 'Captured snapshot restore context at /snapshot-control/restore-context.json',
    };
    this.agent = {
      name: 'snapshot-agent-n7x2q',
      namespace: 'snapshot-system',
      labels: { app: 'snapshot-agent' },
      annotations: {},
      conditions: [],
      containerStatuses: running(true),
      phase: 'Running',
      log: `${iso(this.t0)}\tINFO\tcontroller\tSource container not ready, awaiting quiesce\t{"pod": "llm/checkpoint-job-a1b2c3d4e5f60718-1-x7"}`,
    };
    this.checkpoints = { 'llama-ckpt': this.checkpoint('Creating') };
  }

  private checkpoint(phase: string): unknown {
    return {
      apiVersion: 'nvidia.com/v1alpha1',
      kind: 'DynamoCheckpoint',
      metadata: { name: 'llama-ckpt', namespace: this.ns },
      status: { phase, identityHash: 'a1b2c3d4e5f60718', location: 'pvc://snapshots/a1b2c3d4e5f60718', ...(phase === 'Failed' ? { message: 'cuda-checkpoint-helper --action checkpoint: CUDA_ERROR_NOT_SUPPORTED' } : {}) },
    };
  }

  private event(reason: string, type: string, message: string, pod: string, at: number): void {
    this.events.push({ metadata: { name: `${pod}.${this.events.length}`, namespace: this.ns }, involvedObject: { kind: 'Pod', name: pod }, reason, type, message, source: { component: 'snapshot' }, lastTimestamp: iso(at) });
  }

  private agentLog(line: string): void {
    this.agent.log += `\n${line}`;
  }

  private triggered(action: string): boolean {
    const all = [...this.triggers, ...(this.readTriggers?.() ?? [])];
    return all.some((a) => a[0] === action);
  }

  /** Moves the cluster on to what it looks like now. */
  tick(now = Date.now()): void {
    const o = this.o;
    const step = o.stepMs ?? 150;
    const readyAt = this.t0 + (o.readyMs ?? 150);
    if (o.neverReady || now < readyAt) return;
    if (this.capturedAt === undefined) {
      (this.source.containerStatuses[0] as { ready: boolean }).ready = true;
      this.source.conditions = [{ type: 'Ready', status: 'True' }];
      if (o.viaSnapshotctl ? !this.triggered('checkpoint') : now < readyAt + step) return;
      this.capturedAt = now;
      this.agentLog(`${iso(now)}\tINFO\texecutor\t=== Starting checkpoint operation ===`);
      if (o.checkpointFails) {
        this.checkpoints['llama-ckpt'] = this.checkpoint('Failed');
        this.event('CheckpointFailed', 'Warning', 'cuda-checkpoint-helper --action checkpoint: CUDA_ERROR_NOT_SUPPORTED', this.source.name, now);
      } else {
        this.agentLog(`I1130 06:09:29.100000       1 checkpoint.go:212] "Checkpoint timing summary" pod="${this.ns}/${this.source.name}" checkpoint_id="a1b2c3d4e5f60718" duration="1.213s" gpu_device_map="12ms" cuda_checkpoint="310ms" criu_dump="520ms" overlay_capture="64ms" remove_old_version_and_switch="8ms" unaccounted="299ms" started_to_complete="1.5s"`);
        this.checkpoints['llama-ckpt'] = this.checkpoint('Ready');
      }
      const code = o.checkpointFails ? 137 : (o.exitCode ?? 0);
      this.source.log += code === 139 ? '\nSnapshot completion sentinel detected\nFatal Python error: Segmentation fault' : '\nSnapshot completion sentinel detected\nInitial vLLM snapshot captured successfully; exiting without destroying the engine';
      this.source.containerStatuses = [{ name: 'main', ready: false, restartCount: 0, state: { terminated: { exitCode: code, reason: code === 0 ? 'Completed' : 'Error', finishedAt: iso(now) } } }];
      this.source.conditions = [{ type: 'Ready', status: 'False' }];
      this.source.phase = code === 0 ? 'Succeeded' : 'Failed';
      return;
    }
    if (o.checkpointFails) return;
    if (this.restoreAt === undefined) {
      if (o.viaSnapshotctl ? !this.triggered('restore') : now < this.capturedAt + step) return;
      this.restoreAt = now;
      this.target.annotations['nvidia.com/snapshot-restore-status.main'] = 'in_progress';
      this.target.annotations['nvidia.com/snapshot-restore-container-id.main'] = 'containerd://4c1f';
      this.target.conditions = [{ type: 'Ready', status: 'False' }, { type: 'nvidia.com/Restored', status: 'False', reason: 'RestoreInProgress' }];
      this.event('RestoreRequested', 'Normal', 'Restore requested', this.target.name, now);
      this.agentLog(JSON.stringify({ level: 'info', ts: iso(now), msg: 'Restore target detected, triggering external restore', pod: `${this.ns}/${this.target.name}`, container: 'main' }));
      return;
    }
    if (this.restoredAt === undefined && now >= this.restoreAt + step) {
      this.restoredAt = now;
      if (o.restoreFails) {
        this.target.annotations['nvidia.com/snapshot-restore-status.main'] = 'failed';
        this.target.conditions = [{ type: 'Ready', status: 'False' }, { type: 'nvidia.com/Restored', status: 'False', reason: 'RestoreFailed', message: 'criu restore failed' }];
        this.event('RestoreFailed', 'Warning', "nsrestore: criu restore exited 1: Can't fork for 5562: File exists", this.target.name, now);
        return;
      }
      this.agentLog(JSON.stringify({ level: 'info', ts: iso(now), msg: 'Restore timing summary', duration: '812ms', gpu_device_map: '10ms', overlay_capture: '0s', criu_prepare: '120ms', criu_restore: '420ms', cuda_restore: '210ms', unaccounted: '52ms', started_to_complete: '900ms', container: 'main' }));
      this.agentLog(JSON.stringify({ level: 'info', ts: iso(now), msg: '=== External restore completed ===', restored_pid: 4242, placeholder_host_pid: 99120 }));
      this.target.annotations['nvidia.com/snapshot-restore-status.main'] = 'completed';
      this.target.conditions = [{ type: 'Ready', status: 'True' }, { type: 'nvidia.com/Restored', status: 'True', reason: 'RestoreSucceeded' }];
      this.target.containerStatuses = [{ name: 'main', ready: true, restartCount: 0, state: { running: { startedAt: iso(this.t0) } } }];
      this.target.log += o.resumeLine === false ? '\nServing' : '\nRestore sentinel detected\nResuming model after restore\nApplied snapshot restore context runtime env';
      this.event('RestoreSucceeded', 'Normal', 'Restore completed from checkpoint a1b2c3d4e5f60718', this.target.name, now);
    }
  }

  /** The pods of the worker (source and restore target), as the API returns them. */
  podObjects(): unknown[] {
    return [this.source, this.target].map((p) => podJson(p));
  }

  /** In-memory source for unit tests (what kubeSourceFor builds from kubectl in the product). */
  kubeSource(o: { snapshotctl?: boolean } = {}): KubeRunSource {
    const s: KubeRunSource = {
      pods: async () => (this.tick(), this.podObjects()),
      events: async () => (this.tick(), { kind: 'EventList', items: [...this.events] }),
      checkpoint: async () => (this.tick(), this.checkpoints['llama-ckpt']),
      agentLog: async () => (this.tick(), this.agent.log),
      podLog: async (pod) => [this.source, this.target].find((p) => p.name === pod)?.log ?? '',
    };
    if (o.snapshotctl) {
      s.snapshotctl = async (args) => {
        if (args[0] !== '--help') this.triggers.push(args);
        return { code: 0, stdout: args[0] === '--help' ? 'usage: snapshotctl' : 'status=Submitted\n', stderr: '' };
      };
    }
    return s;
  }
}

export function podJson(p: ScenarioPod): unknown {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: p.name, namespace: p.namespace, labels: p.labels, annotations: p.annotations },
    spec: { containers: [{ name: 'main' }] },
    status: { phase: p.phase, conditions: p.conditions, containerStatuses: p.containerStatuses },
  };
}

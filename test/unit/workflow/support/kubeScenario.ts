/**
 * A scripted snapshot cycle on Kubernetes, as the cluster shows it, in either API generation. The
 * objects are written the way the operator and the agent write them; every field name and value
 * follows the upstream source named beside it (pod and object ids are made up):
 *
 * - `snapshot` (today; ai-dynamo/snapshot api/v1alpha1 *_types.go, api/podcontract,
 *   agent/internal/controller controller.go + podsnapshotcontent.go, agent/internal/executor
 *   checkpoint.go + restore.go, docs/reference/api.md): a SnapshotJob's source pod becomes Ready, the
 *   operator binds its PodSnapshot to a PodSnapshotContent, the agent logs a nested `Checkpoint timing
 *   summary`, marks the content Ready (reason `Captured`) and its dump ends the source (exit 137);
 *   the SnapshotJob turns Captured, then Completed. A pod annotated `nvidia.com/restore-from` is
 *   restored: condition `nvidia.com/Restored` False/RestoreInProgress, then True/RestoreSucceeded
 *   (or RestoreIncompatible with api/compat's `<check>: source X, target Y` message), events
 *   RestoreRequested / the outcome, a nested `Restore timing summary`, and the pod turns Ready.
 * - `dynamo` (before dynamo#14076; dynamo-snapshot.md §5.2, §5.3, §8): role-labelled pods, a
 *   DynamoCheckpoint Creating → Ready, `snapshot-complete` and the source exiting 0 by itself, the
 *   restore-status annotation in_progress → completed, flat timing summaries.
 *
 * Capture and restore start by themselves (the operator's Auto mode) or when snapshotctl is called.
 * The same objects are read in memory (unit tests) or written to a real API server (system tests).
 */
import crypto from 'node:crypto';
import type { KubeRunSource } from '../../../../src/core/workflow/kube/source';

export interface ScenarioPod {
  name: string;
  namespace: string;
  uid: string;
  labels: Record<string, string>;
  annotations: Record<string, string>;
  conditions: unknown[];
  containerStatuses: unknown[];
  phase: string;
  log: string;
  container: string;
  node: string;
}

export type Generation = 'snapshot' | 'dynamo';

export interface ScenarioOptions {
  /** Which API the cluster serves (default: today's Snapshot API). */
  generation?: Generation;
  namespace?: string;
  /** Source container's exit code after the capture (snapshot: the dump's kill, default 137; dynamo: 139 = SIGSEGV in teardown). */
  exitCode?: number;
  checkpointFails?: boolean;
  /** How the restore ends (default RestoreSucceeded; dynamo knows only failed). */
  restoreOutcome?: 'RestoreSucceeded' | 'RestoreFailed' | 'RestoreIncompatible' | 'RestorePartiallySucceeded' | 'RestoreReplenishmentIncompatible';
  /** dynamo: the restore fails (annotation failed). */
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
  /** Names start with this (several scenarios in one namespace); default "llama". */
  prefix?: string;
}

const iso = (t: number): string => new Date(t).toISOString();
export const SNAPSHOT_AGENT_LABELS = { 'app.kubernetes.io/name': 'snapshot', 'app.kubernetes.io/instance': 'snapshot', 'app.kubernetes.io/component': 'snapshot-agent' };
export const INCOMPATIBLE_MESSAGE = 'memory-limit: source 4Gi, target 1Gi';

export class KubeScenario {
  readonly ns: string;
  readonly generation: Generation;
  readonly source: ScenarioPod;
  target?: ScenarioPod;
  readonly agent: ScenarioPod;
  readonly events: unknown[] = [];
  /** Namespaced custom objects by name (PodSnapshot, SnapshotJob, DynamoCheckpoint) and cluster-scoped contents. */
  readonly objects = new Map<string, Record<string, unknown>>();
  /** snapshotctl argv seen (unit: through kubeSource(); system: read from the fake's file by `readTriggers`). */
  triggers: string[][] = [];
  readTriggers?: () => string[][];
  readonly snapshotName: string;
  readonly jobName: string;
  readonly restorePodName: string;
  /** cluster-scoped, so one per scenario (the operator names it after a fresh UID) */
  readonly contentName = `podsnapshotcontent-${crypto.randomUUID()}`;
  readonly checkpointName = 'llama-ckpt';
  private readonly t0 = Date.now();
  private capturedAt?: number;
  private restoreAt?: number;
  private restoredAt?: number;

  constructor(readonly o: ScenarioOptions = {}) {
    this.ns = o.namespace ?? 'llm';
    this.generation = o.generation ?? 'snapshot';
    const pre = o.prefix ?? 'llama';
    this.snapshotName = `${pre}-snap`;
    this.jobName = `${pre}-job`;
    this.restorePodName = `${pre}-restore-0`;
    const today = this.generation === 'snapshot';
    this.source = this.pod(today ? `${pre}-job-source-x7q2m` : 'checkpoint-job-a1b2c3d4e5f60718-1-x7', today
      ? { app: 'llama', 'batch.kubernetes.io/job-name': `${pre}-job-source`, 'nvidia.com/snapshot-job-uid': 'b1c6e0d2-0f3a-4e59-8d21-6a7c9e4f1b23' }
      : { app: 'llama', 'nvidia.com/snapshot-is-checkpoint-source': 'true' });
    this.source.log = [
      'Snapshot mode enabled (watcher-driven signals)',
      '(EngineCore_DP0 pid=51) vLLM snapshot warmup starting',
      '(EngineCore_DP1 pid=52) vLLM snapshot warmup starting',
      '(EngineCore_DP0 pid=51) vLLM snapshot warmup complete (2 tokens)',
      '(EngineCore_DP1 pid=52) vLLM snapshot warmup complete (2 tokens)',
      'Pausing model',
      'Ready for snapshot. Polling for sentinel in /snapshot-control (snapshot-complete or restore-complete)',
    ].join('\n');
    if (!today) {
      this.target = this.pod(this.restorePodName, { app: 'llama', 'nvidia.com/snapshot-is-restore-target': 'true', 'nvidia.com/snapshot-checkpoint-id': 'a1b2c3d4e5f60718' });
      this.target.annotations['nvidia.com/snapshot-target-containers'] = 'main';
      this.target.log = 'Captured snapshot restore context at /snapshot-control/restore-context.json';
    }
    this.agent = this.pod(`snapshot-agent-${pre === 'llama' ? 'n7x2q' : pre}`, today ? { ...SNAPSHOT_AGENT_LABELS } : { app: 'snapshot-agent' }, 'snapshot-system', 'agent');
    this.agent.containerStatuses = this.running(true, 'agent');
    this.agent.conditions = [{ type: 'Ready', status: 'True' }];
    this.agent.log = `${iso(this.t0)}\tINFO\tcontroller\tSource container not ready, awaiting quiesce\t{"pod": "${this.ns}/${this.source.name}"}`;
    if (today) {
      this.objects.set(`PodSnapshot/${this.snapshotName}`, this.podSnapshot());
      this.objects.set(`SnapshotJob/${this.jobName}`, this.snapshotJob({ Running: ['False', 'PodPending'], Captured: ['False', 'CaptureInProgress'], Completed: ['False', 'CaptureInProgress'], Failed: ['False', 'CaptureInProgress'] }));
    } else {
      this.objects.set(`DynamoCheckpoint/${this.checkpointName}`, this.dynamoCheckpoint('Creating'));
    }
  }

  private pod(name: string, labels: Record<string, string>, namespace = this.ns, container = 'main'): ScenarioPod {
    return { name, namespace, uid: `uid-${name}`, labels, annotations: {}, conditions: [{ type: 'Ready', status: 'False' }], containerStatuses: this.running(false, container), phase: 'Running', log: '', container, node: 'node-a' };
  }

  private running(ready: boolean, name = 'main') {
    return [{ name, ready, restartCount: 0, image: 'registry.example/vllm-worker:1.6.1', imageID: '', state: { running: { startedAt: iso(this.t0) } } }];
  }

  private condition(type: string, status: string, reason: string, message = '', at = Date.now()) {
    return { type, status, reason, message, lastTransitionTime: iso(Math.floor(at / 1000) * 1000) };
  }

  private podSnapshot(): Record<string, unknown> {
    return {
      apiVersion: 'nvidia.com/v1alpha1',
      kind: 'PodSnapshot',
      metadata: { name: this.snapshotName, namespace: this.ns, labels: { 'nvidia.com/snapshot-job': this.jobName, 'nvidia.com/snapshot-job-uid': 'b1c6e0d2-0f3a-4e59-8d21-6a7c9e4f1b23' } },
      spec: { source: { podRef: { name: this.source.name, uid: this.source.uid, containers: ['main'] } } },
      status: {},
    };
  }

  private snapshotJob(c: Record<string, [string, string]>, extra: Record<string, unknown> = {}): Record<string, unknown> {
    return {
      apiVersion: 'nvidia.com/v1alpha1',
      kind: 'SnapshotJob',
      metadata: { name: this.jobName, namespace: this.ns },
      spec: { podTemplate: { metadata: { labels: { app: 'llama' } }, spec: { containers: [{ name: 'main', image: 'registry.example/vllm-worker:1.6.1' }] } }, podSnapshotTemplate: { targetContainers: ['main'] }, activeDeadlineSeconds: 3600 },
      status: { podSnapshotName: this.snapshotName, startedAt: iso(Math.floor((this.t0 + (this.o.readyMs ?? 150)) / 1000) * 1000), ...extra, conditions: Object.entries(c).map(([t, [s, r]]) => this.condition(t, s, r)) },
    };
  }

  private content(state: 'pending' | 'ready' | 'failed'): Record<string, unknown> {
    const conditions = state === 'ready'
      ? [this.condition('Ready', 'True', 'Captured', 'Checkpoint captured and verified')]
      : state === 'failed'
        ? [this.condition('Failed', 'True', 'CheckpointFailed', 'cuda-checkpoint-helper --action checkpoint: CUDA_ERROR_NOT_SUPPORTED')]
        : [];
    return {
      apiVersion: 'nvidia.com/v1alpha1',
      kind: 'PodSnapshotContent',
      metadata: { name: this.contentName, labels: { 'nvidia.com/snapshot-node': 'node-a' } },
      spec: { snapshotRef: { namespace: this.ns, name: this.snapshotName }, source: { podRef: { name: this.source.name, uid: this.source.uid, containers: ['main'] }, nodeName: 'node-a' } },
      status: {
        conditions,
        ...(state === 'ready' ? { source: { node: { name: 'node-a', architecture: 'amd64', kernelVersion: '6.18.0' }, pod: { image: 'registry.example/vllm-worker:1.6.1', memory: '4Gi' }, devices: { nvidia: { driverVersion: '580.82.07', instances: [{ productName: 'NVIDIA H200' }] } } } } : {}),
      },
    };
  }

  private dynamoCheckpoint(phase: string): Record<string, unknown> {
    return {
      apiVersion: 'nvidia.com/v1alpha1',
      kind: 'DynamoCheckpoint',
      metadata: { name: this.checkpointName, namespace: this.ns, labels: { 'nvidia.com/snapshot-checkpoint-hash': 'a1b2c3d4e5f60718' } },
      spec: { identity: { model: 'meta-llama/Llama-3.1-8B', backendFramework: 'vllm' }, job: { activeDeadlineSeconds: 3600 } },
      status: { phase, identityHash: 'a1b2c3d4e5f60718', location: 'pvc://snapshots/a1b2c3d4e5f60718', ...(phase === 'Failed' ? { message: 'cuda-checkpoint-helper --action checkpoint: CUDA_ERROR_NOT_SUPPORTED' } : {}) },
    };
  }

  private event(reason: string, type: string, message: string, pod: ScenarioPod, at: number): void {
    this.events.push({ apiVersion: 'v1', kind: 'Event', metadata: { name: `${pod.name}.${this.events.length}`, namespace: this.ns }, involvedObject: { kind: 'Pod', name: pod.name, namespace: this.ns, uid: pod.uid }, reason, type, message, source: { component: 'snapshot' }, reportingComponent: 'snapshot', firstTimestamp: iso(Math.floor(at / 1000) * 1000), lastTimestamp: iso(Math.floor(at / 1000) * 1000), count: 1 });
  }

  private agentLog(line: string): void {
    this.agent.log += `\n${line}`;
  }

  private zap(at: number, msg: string, fields: Record<string, unknown>): string {
    // zap's console encoder: tab-separated time, level, logger, message, then the fields as JSON.
    return `${iso(at)}\tINFO\tcontroller\t${msg}\t${JSON.stringify(fields).replace(/":/g, '": ').replace(/,"/g, ', "')}`;
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
      if (this.source.phase !== 'Running') return;
      (this.source.containerStatuses[0] as { ready: boolean }).ready = true;
      this.source.conditions = [{ type: 'Ready', status: 'True' }];
      if (this.generation === 'snapshot') {
        this.source.labels['nvidia.com/snapshot-capture-eligible'] = 'true';
        this.objects.set(`SnapshotJob/${this.jobName}`, this.snapshotJob({ Running: ['True', 'PodReady'], Captured: ['False', 'CaptureInProgress'], Completed: ['False', 'CaptureInProgress'], Failed: ['False', 'CaptureInProgress'] }));
      }
      if (o.viaSnapshotctl ? !this.triggered('checkpoint') : now < readyAt + step) return;
      this.capture(now);
      return;
    }
    if (o.checkpointFails) return;
    if (this.restoreAt === undefined) {
      if (o.viaSnapshotctl ? !this.triggered('restore') : now < this.capturedAt + step) return;
      this.restoreAt = now;
      if (this.generation === 'snapshot') this.restoreStartsToday(now);
      else this.restoreStartsLegacy(now);
      return;
    }
    if (this.restoredAt === undefined && now >= this.restoreAt + step) {
      this.restoredAt = now;
      if (this.generation === 'snapshot') this.restoreEndsToday(now);
      else this.restoreEndsLegacy(now);
    }
  }

  private capture(now: number): void {
    const o = this.o;
    this.capturedAt = now;
    const today = this.generation === 'snapshot';
    this.agentLog(today ? this.zap(now, '=== Starting checkpoint operation ===', { content: this.contentName, pod: `${this.ns}/${this.source.name}` }) : `${iso(now)}\tINFO\texecutor\t=== Starting checkpoint operation ===`);
    if (today) {
      const snap = this.objects.get(`PodSnapshot/${this.snapshotName}`)!;
      if (o.checkpointFails) {
        this.objects.set(`PodSnapshotContent/${this.contentName}`, this.content('failed'));
        snap.status = { boundSnapshotContentName: this.contentName, conditions: [this.condition('Failed', 'True', 'CheckpointFailed', 'cuda-checkpoint-helper --action checkpoint: CUDA_ERROR_NOT_SUPPORTED')] };
        this.objects.set(`SnapshotJob/${this.jobName}`, this.snapshotJob({ Running: ['True', 'PodReady'], Captured: ['False', 'CaptureFailed'], Completed: ['False', 'CaptureFailed'], Failed: ['True', 'PodSnapshotFailed'] }, { completedAt: iso(Math.floor(now / 1000) * 1000) }));
        this.event('CheckpointFailed', 'Warning', 'cuda-checkpoint-helper --action checkpoint: CUDA_ERROR_NOT_SUPPORTED', this.source, now);
      } else {
        this.agentLog(this.zap(now, 'Checkpoint timing summary', { content: this.contentName, checkpoint: { duration: '1.213s', phases: { gpu_device_map: '12ms', cuda_checkpoint: '310ms', criu_dump: '520ms', overlay_capture: '64ms', remove_old_version_and_switch: '8ms', unaccounted: '299ms' }, started_to_complete: '1.5s' } }));
        this.objects.set(`PodSnapshotContent/${this.contentName}`, this.content('ready'));
        snap.status = { boundSnapshotContentName: this.contentName, conditions: [this.condition('Ready', 'True', 'Captured', 'Checkpoint captured and verified')] };
        this.objects.set(`SnapshotJob/${this.jobName}`, this.snapshotJob({ Running: ['True', 'PodReady'], Captured: ['True', 'CaptureCompleted'], Completed: ['True', 'CaptureCompleted'], Failed: ['False', 'CaptureCompleted'] }, { completedAt: iso(Math.floor(now / 1000) * 1000) }));
      }
      // The dump ends the source (snapshot#101): no snapshot-complete, the container is killed.
      const code = o.exitCode ?? 137;
      this.source.containerStatuses = [{ name: 'main', ready: false, restartCount: 0, image: 'registry.example/vllm-worker:1.6.1', imageID: '', state: { terminated: { exitCode: code, reason: code === 0 ? 'Completed' : 'Error', finishedAt: iso(Math.floor(now / 1000) * 1000), startedAt: iso(Math.floor(this.t0 / 1000) * 1000) } } }];
      this.source.conditions = [{ type: 'Ready', status: 'False' }];
      this.source.phase = 'Failed';
      delete this.source.labels['nvidia.com/snapshot-capture-eligible'];
      return;
    }
    if (o.checkpointFails) {
      this.objects.set(`DynamoCheckpoint/${this.checkpointName}`, this.dynamoCheckpoint('Failed'));
      this.event('CheckpointFailed', 'Warning', 'cuda-checkpoint-helper --action checkpoint: CUDA_ERROR_NOT_SUPPORTED', this.source, now);
    } else {
      this.agentLog(`I1130 06:09:29.100000       1 checkpoint.go:212] "Checkpoint timing summary" pod="${this.ns}/${this.source.name}" checkpoint_id="a1b2c3d4e5f60718" duration="1.213s" gpu_device_map="12ms" cuda_checkpoint="310ms" criu_dump="520ms" overlay_capture="64ms" remove_old_version_and_switch="8ms" unaccounted="299ms" started_to_complete="1.5s"`);
      this.objects.set(`DynamoCheckpoint/${this.checkpointName}`, this.dynamoCheckpoint('Ready'));
    }
    const code = o.checkpointFails ? 137 : (o.exitCode ?? 0);
    this.source.log += code === 139 ? '\nSnapshot completion sentinel detected\nFatal Python error: Segmentation fault' : '\nSnapshot completion sentinel detected\nInitial vLLM snapshot captured successfully; exiting without destroying the engine';
    this.source.containerStatuses = [{ name: 'main', ready: false, restartCount: 0, image: 'registry.example/vllm-worker:1.6.1', imageID: '', state: { terminated: { exitCode: code, reason: code === 0 ? 'Completed' : 'Error', finishedAt: iso(Math.floor(now / 1000) * 1000), startedAt: iso(Math.floor(this.t0 / 1000) * 1000) } } }];
    this.source.conditions = [{ type: 'Ready', status: 'False' }];
    this.source.phase = code === 0 ? 'Succeeded' : 'Failed';
  }

  private restoreStartsToday(now: number): void {
    // A new pod from the restore manifest (snapshotctl restore --manifest, or the caller), annotated restore-from.
    const t = this.pod(this.restorePodName, { app: 'llama' });
    t.annotations['nvidia.com/restore-from'] = this.snapshotName;
    t.log = 'Captured snapshot restore context at /snapshot-control/restore-context.json';
    t.conditions = [{ type: 'Ready', status: 'False' }, this.condition('nvidia.com/Restored', 'False', 'RestoreInProgress', 'Restore in progress', now)];
    this.target = t;
    this.event('RestoreRequested', 'Normal', `Restore requested from checkpoint ${this.contentName} for container main`, t, now);
    this.agentLog(this.zap(now, 'Restore target detected, triggering external restore', { pod: `${this.ns}/${t.name}`, checkpoint_id: this.contentName, container: 'main', trigger: 'restore-from' }));
  }

  private restoreEndsToday(now: number): void {
    const t = this.target!;
    const outcome = this.o.restoreOutcome ?? 'RestoreSucceeded';
    if (outcome === 'RestoreSucceeded') {
      this.agentLog(this.zap(now, 'Restore timing summary', { pod: `${this.ns}/${t.name}`, container: 'main', restore: { duration: '812ms', phases: { gpu_device_map: '10ms', overlay_capture: '0s', criu_prepare: '120ms', criu_restore: '420ms', cuda_restore: '210ms', unaccounted: '52ms' }, started_to_complete: '900ms' } }));
      this.agentLog(this.zap(now, '=== External restore completed ===', { restored_pid: 4242, placeholder_host_pid: 99120 }));
      t.annotations['nvidia.com/restored-container-ids'] = JSON.stringify({ main: 'containerd://4c1f' });
      t.conditions = [{ type: 'Ready', status: 'True' }, this.condition('nvidia.com/Restored', 'True', 'RestoreSucceeded', 'Restored 1 of 1 destination containers', now)];
      t.containerStatuses = this.running(true);
      t.log += this.o.resumeLine === false ? '\nServing' : '\nRestore sentinel detected\nResuming model after restore\nApplied snapshot restore context runtime env';
      this.event('RestoreSucceeded', 'Normal', 'Restored 1 of 1 destination containers', t, now);
      return;
    }
    const message = outcome === 'RestoreIncompatible' || outcome === 'RestoreReplenishmentIncompatible'
      ? INCOMPATIBLE_MESSAGE
      : outcome === 'RestorePartiallySucceeded'
        ? 'restored engine-0; engine-1: nsrestore: criu restore exited 1'
        : "nsrestore: criu restore exited 1: Can't fork for 5562: File exists";
    if (outcome === 'RestoreIncompatible') this.agentLog(this.zap(now, 'Refusing restore; this node cannot run the checkpoint', { pod: `${this.ns}/${t.name}`, gate: 'preflight', reason: message }));
    t.conditions = [{ type: 'Ready', status: 'False' }, this.condition('nvidia.com/Restored', 'False', outcome, message, now)];
    this.event(outcome, 'Warning', message, t, now);
  }

  private restoreStartsLegacy(now: number): void {
    const t = this.target!;
    t.annotations['nvidia.com/snapshot-restore-status.main'] = 'in_progress';
    t.annotations['nvidia.com/snapshot-restore-container-id.main'] = 'containerd://4c1f';
    t.conditions = [{ type: 'Ready', status: 'False' }, this.condition('nvidia.com/Restored', 'False', 'RestoreInProgress', '', now)];
    this.event('RestoreRequested', 'Normal', 'Restore requested', t, now);
    this.agentLog(JSON.stringify({ level: 'info', ts: iso(now), msg: 'Restore target detected, triggering external restore', pod: `${this.ns}/${t.name}`, container: 'main' }));
  }

  private restoreEndsLegacy(now: number): void {
    const t = this.target!;
    if (this.o.restoreFails) {
      t.annotations['nvidia.com/snapshot-restore-status.main'] = 'failed';
      t.conditions = [{ type: 'Ready', status: 'False' }, this.condition('nvidia.com/Restored', 'False', 'RestoreFailed', 'criu restore failed', now)];
      this.event('RestoreFailed', 'Warning', "nsrestore: criu restore exited 1: Can't fork for 5562: File exists", t, now);
      return;
    }
    this.agentLog(JSON.stringify({ level: 'info', ts: iso(now), msg: 'Restore timing summary', duration: '812ms', gpu_device_map: '10ms', overlay_capture: '0s', criu_prepare: '120ms', criu_restore: '420ms', cuda_restore: '210ms', unaccounted: '52ms', started_to_complete: '900ms', container: 'main' }));
    this.agentLog(JSON.stringify({ level: 'info', ts: iso(now), msg: '=== External restore completed ===', restored_pid: 4242, placeholder_host_pid: 99120 }));
    t.annotations['nvidia.com/snapshot-restore-status.main'] = 'completed';
    t.conditions = [{ type: 'Ready', status: 'True' }, this.condition('nvidia.com/Restored', 'True', 'RestoreSucceeded', '', now)];
    t.containerStatuses = this.running(true);
    t.log += this.o.resumeLine === false ? '\nServing' : '\nRestore sentinel detected\nResuming model after restore\nApplied snapshot restore context runtime env';
    this.event('RestoreSucceeded', 'Normal', 'Restore completed from checkpoint a1b2c3d4e5f60718', t, now);
  }

  /** The pods of the worker (source and restore target), as the API returns them. */
  workerPods(): ScenarioPod[] {
    return [this.source, ...(this.target ? [this.target] : [])];
  }

  /** The nvidia.com resources this cluster serves. */
  apiResources(): string[] {
    return this.generation === 'snapshot' ? ['podsnapshotcontents.nvidia.com', 'podsnapshots.nvidia.com', 'snapshotjobs.nvidia.com'] : ['dynamocheckpoints.nvidia.com'];
  }

  /** In-memory source for unit tests (what kubeSourceFor builds from kubectl in the product). */
  kubeSource(o: { snapshotctl?: boolean } = {}): KubeRunSource {
    const kinds: Record<string, string> = { dynamocheckpoint: 'DynamoCheckpoint', podsnapshot: 'PodSnapshot', podsnapshotcontent: 'PodSnapshotContent' };
    const s: KubeRunSource = {
      pods: async () => (this.tick(), this.workerPods().map(podJson)),
      events: async () => (this.tick(), { kind: 'EventList', items: [...this.events] }),
      apiResources: async () => this.apiResources(),
      object: async (kind, name) => (this.tick(), this.objects.get(`${kinds[kind]}/${name}`)),
      snapshotList: async () => (this.tick(), { kind: 'List', items: [...this.objects.values()].filter((x) => x.kind === 'PodSnapshot' || x.kind === 'SnapshotJob') }),
      agentLog: async () => (this.tick(), this.agent.log),
      agentWhere: async () => 'namespace snapshot-system (discovered), 1 pod',
      podLog: async (pod) => this.workerPods().find((p) => p.name === pod)?.log ?? '',
    };
    if (o.snapshotctl) {
      s.snapshotctl = async (args) => {
        if (args[0] === '--help') return { code: 0, stdout: '', stderr: this.generation === 'snapshot' ? SNAPSHOTCTL_HELP : SNAPSHOTCTL_HELP_CHECKPOINT_ID };
        this.triggers.push(args);
        return { code: 0, stdout: args[0] === 'checkpoint' ? `status=Ready\npod_snapshot=${this.snapshotName}\n` : `status=Submitted\nrestore_pod=${this.restorePodName}\n`, stderr: '' };
      };
    }
    return s;
  }
}

/** The top-level usage of ai-dynamo/snapshot's snapshotctl today (operator/cmd/snapshotctl main.go printUsage). */
export const SNAPSHOTCTL_HELP = `snapshotctl runs snapshot checkpoint and restore flows from a worker Pod manifest.

Subcommands:
  checkpoint
  restore

Examples:
  snapshotctl checkpoint --manifest /tmp/vllm-worker-pod.yaml --snapshot worker-snapshot --container main
  snapshotctl restore --manifest /tmp/sglang-worker-pod.yaml --snapshot worker-snapshot
`;

/** The same at ai-dynamo/snapshot b7e707c (before --snapshot). */
export const SNAPSHOTCTL_HELP_CHECKPOINT_ID = `snapshotctl runs snapshot checkpoint and restore flows from a worker Pod manifest.

Subcommands:
  checkpoint
  restore

Examples:
  snapshotctl checkpoint --manifest /tmp/vllm-worker-pod.yaml --container main
  snapshotctl restore --manifest /tmp/sglang-worker-pod.yaml --checkpoint-id manual-snapshot-123 --containers main
  snapshotctl restore --pod existing-restore-target --checkpoint-id manual-snapshot-123 --containers engine-0,engine-1
`;

export function podJson(p: ScenarioPod): Record<string, unknown> {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: p.name, namespace: p.namespace, uid: p.uid, labels: { ...p.labels }, annotations: { ...p.annotations } },
    spec: { nodeName: p.node, containers: [{ name: p.container, image: 'registry.example/vllm-worker:1.6.1' }] },
    status: { phase: p.phase, conditions: p.conditions, containerStatuses: p.containerStatuses },
  };
}

/**
 * Parsers for the pods, events and legacy checkpoint objects a Kubernetes snapshot run is observed
 * through, in both API generations (generation.ts): today's pod annotation `nvidia.com/restore-from`
 * (+ `restore-container-map`) and pod condition `nvidia.com/Restored` (ai-dynamo/snapshot
 * api/podcontract), and yesterday's per-container annotation `nvidia.com/snapshot-restore-status.<c>`,
 * role labels `nvidia.com/snapshot-is-checkpoint-source` / `-is-restore-target` / `-checkpoint-id`
 * and `DynamoCheckpoint.status.phase` (dynamo-snapshot.md §5, §8). The snapshot API's own objects are
 * in snapshotObjects.ts, the agent's timing summaries in timing.ts. Input is kubectl's raw JSON; zod
 * schemas are loose: only the fields used are typed, everything else passes through.
 */
import { z } from 'zod';
import { parseContainerMap, RESTORED_CONDITION, type RestoredCondition } from './restored';
import { Condition, optInt, optText, time } from './schema';

export const RESTORE_STATUS_PREFIX = 'nvidia.com/snapshot-restore-status.';
export const RESTORE_FROM = 'nvidia.com/restore-from';
export const RESTORE_CONTAINER_MAP = 'nvidia.com/restore-container-map';
export const CAPTURE_ELIGIBLE = 'nvidia.com/snapshot-capture-eligible';

const Terminated = z.looseObject({ exitCode: optInt, signal: optInt, reason: optText, finishedAt: optText });
const ContainerStatus = z.looseObject({
  name: z.string(),
  ready: z.boolean().nullish(),
  restartCount: optInt,
  state: z.looseObject({ terminated: Terminated.nullish(), running: z.looseObject({}).nullish() }).nullish(),
  lastState: z.looseObject({ terminated: Terminated.nullish() }).nullish(),
});

const Pod = z.looseObject({
  metadata: z.looseObject({
    name: z.string(),
    namespace: optText,
    creationTimestamp: optText,
    labels: z.record(z.string(), z.string()).nullish(),
    annotations: z.record(z.string(), z.string()).nullish(),
  }),
  spec: z.looseObject({ nodeName: optText }).nullish(),
  status: z.looseObject({ phase: optText, conditions: z.array(Condition).nullish(), containerStatuses: z.array(ContainerStatus).nullish() }).nullish(),
});

export type RestoreStatus = 'in_progress' | 'completed' | 'failed';

export interface PodState {
  name: string;
  namespace?: string;
  node?: string;
  createdAt?: number;
  phase?: string;
  /** from the labels (yesterday) or the restore-from annotation / capture-eligible label (today) */
  role: 'checkpoint-source' | 'restore-target' | 'other';
  labels: Record<string, string>;
  /** legacy label nvidia.com/snapshot-checkpoint-id */
  checkpointId?: string;
  /** today: the PodSnapshot this pod restores from (annotation nvidia.com/restore-from) */
  restoreFrom?: string;
  /** today: nvidia.com/restore-container-map pairs (empty: same-name restore) */
  containerMap: { source: string; destination: string }[];
  /** `nvidia.com/snapshot-restore-status.<container>` per container (yesterday) */
  restoreStatus: Record<string, RestoreStatus | string>;
  /** The pod condition `nvidia.com/Restored` (also accepted: `snapshot/Restored`, `Restored`). */
  restored?: RestoredCondition;
  ready: Record<string, boolean>;
  /** A container that ended: exit code / signal, as the kubelet reports it. */
  terminated: Record<string, { exitCode?: number; signal?: number; reason?: string; at?: number }>;
}

export function parsePod(json: unknown): PodState {
  const pod = Pod.parse(json);
  const labels = pod.metadata.labels ?? {};
  const ann = pod.metadata.annotations ?? {};
  const restoreStatus: Record<string, string> = {};
  for (const [k, v] of Object.entries(ann)) if (k.startsWith(RESTORE_STATUS_PREFIX)) restoreStatus[k.slice(RESTORE_STATUS_PREFIX.length)] = v;
  const cond = pod.status?.conditions?.find((c) => c.type === RESTORED_CONDITION) ?? pod.status?.conditions?.find((c) => /(^|\/)Restored$/.test(c.type));
  const ready: Record<string, boolean> = {};
  const terminated: PodState['terminated'] = {};
  for (const cs of pod.status?.containerStatuses ?? []) {
    ready[cs.name] = cs.ready ?? false;
    const t = cs.state?.terminated ?? cs.lastState?.terminated;
    if (t) terminated[cs.name] = { exitCode: t.exitCode, signal: t.signal, reason: t.reason, at: time(t.finishedAt) };
  }
  const restoreFrom = ann[RESTORE_FROM];
  const source = labels['nvidia.com/snapshot-is-checkpoint-source'] === 'true' || labels[CAPTURE_ELIGIBLE] === 'true';
  const target = labels['nvidia.com/snapshot-is-restore-target'] === 'true' || restoreFrom !== undefined;
  return {
    name: pod.metadata.name,
    namespace: pod.metadata.namespace,
    node: pod.spec?.nodeName,
    createdAt: time(pod.metadata.creationTimestamp),
    phase: pod.status?.phase,
    role: target ? 'restore-target' : source ? 'checkpoint-source' : 'other',
    labels,
    checkpointId: labels['nvidia.com/snapshot-checkpoint-id'],
    restoreFrom,
    containerMap: parseContainerMap(ann[RESTORE_CONTAINER_MAP]),
    restoreStatus,
    restored: cond ? { status: cond.status, reason: cond.reason, message: cond.message, at: time(cond.lastTransitionTime) } : undefined,
    ready,
    terminated,
  };
}

const Event = z.looseObject({
  reason: optText,
  type: optText,
  message: optText,
  source: z.looseObject({ component: optText }).nullish(),
  reportingComponent: optText,
  involvedObject: z.looseObject({ kind: optText, name: optText }).nullish(),
  lastTimestamp: optText,
  eventTime: optText,
  firstTimestamp: optText,
});

/**
 * The snapshot agent's event reasons (component `snapshot`; agent/internal/controller): capture, the
 * restore outcome (the same words as the Restored reasons), and its bookkeeping failures.
 */
export const SNAPSHOT_EVENT_REASONS = [
  'CheckpointFailed',
  'RestoreRequested',
  'RestoreSucceeded',
  'RestoreFailed',
  'RestorePartiallySucceeded',
  'RestoreIncompatible',
  'RestoreReplenishmentIncompatible',
  'RestoreWorkerFailed',
  'RestoreCleanupFailed',
  'RestoreStatusUpdateFailed',
  'RestoreFinalizerUpdateFailed',
  'RestoreAlreadyCompleted',
  'RestoreAlreadyPartiallySucceeded',
  'RestoreAlreadyFailed',
];

export interface SnapshotEvent {
  reason: string;
  type: string;
  message: string;
  object?: string;
  at?: number;
}

/** Snapshot events from `kubectl get events -o json`, oldest first. */
export function parseEvents(json: unknown): SnapshotEvent[] {
  const list = z.looseObject({ items: z.array(Event) }).parse(json);
  const out: SnapshotEvent[] = [];
  for (const e of list.items) {
    const component = e.source?.component ?? e.reportingComponent ?? '';
    if (!SNAPSHOT_EVENT_REASONS.includes(e.reason ?? '') && !/snapshot/i.test(component)) continue;
    const when = e.lastTimestamp ?? e.eventTime ?? e.firstTimestamp ?? undefined;
    out.push({
      reason: e.reason ?? '',
      type: e.type ?? 'Normal',
      message: e.message ?? '',
      object: e.involvedObject?.name ? `${e.involvedObject.kind ?? ''}/${e.involvedObject.name}` : undefined,
      at: when ? time(when) : undefined,
    });
  }
  return out.sort((a, b) => (a.at ?? 0) - (b.at ?? 0));
}

const CheckpointObject = z.looseObject({
  kind: optText,
  metadata: z.looseObject({ name: z.string() }),
  status: z
    .looseObject({
      phase: optText,
      message: optText,
      identityHash: optText,
      jobName: optText,
      location: optText,
      conditions: z.array(Condition).nullish(),
    })
    .nullish(),
});

export interface CheckpointState {
  kind: string;
  name: string;
  /** ready / failed / pending, from DynamoCheckpoint.status.phase or Ready / Failed conditions. */
  state: 'ready' | 'failed' | 'pending';
  reason?: string;
  message?: string;
  location?: string;
}

/** DynamoCheckpoint (`status.phase`); objects with Ready / Failed conditions are read the same way. */
export function parseCheckpoint(json: unknown): CheckpointState {
  const o = CheckpointObject.parse(json);
  const st: Partial<NonNullable<typeof o.status>> = o.status ?? {};
  const base = { kind: o.kind ?? 'Checkpoint', name: o.metadata.name, location: st.location };
  if (st.phase) {
    const state = st.phase === 'Ready' ? 'ready' : st.phase === 'Failed' ? 'failed' : 'pending';
    return { ...base, state, reason: st.phase, message: st.message };
  }
  const failed = st.conditions?.find((c) => c.type === 'Failed' && c.status === 'True');
  if (failed) return { ...base, state: 'failed', reason: failed.reason, message: failed.message };
  const ready = st.conditions?.find((c) => c.type === 'Ready' && c.status === 'True');
  if (ready) return { ...base, state: 'ready', reason: ready.reason, message: ready.message };
  return { ...base, state: 'pending', message: st.conditions?.map((c) => `${c.type}=${c.status}${c.reason ? ` (${c.reason})` : ''}`).join(', ') };
}

/** The agent's own lifecycle lines (dynamo-snapshot.md §6 "agent" rows), for evidence. */
export const AGENT_LINES: readonly [RegExp, string][] = [
  [/Source container not ready, awaiting quiesce/, 'waiting for ready-for-snapshot'],
  [/=== Starting checkpoint operation ===/, 'checkpoint started'],
  [/Checkpoint container failed/, 'checkpoint container failed'],
  [/Restore target detected, triggering external restore/, 'restore requested'],
  [/=== Starting external restore ===/, 'restore started'],
  [/Refusing restore; this node cannot run the checkpoint/, 'restore refused'],
  [/=== External restore completed ===/, 'restore completed'],
];

/**
 * Parsers for what a Kubernetes snapshot run is observed through (dynamo-snapshot.md §5.2–§5.3, §8,
 * §9): the pod (restore-status annotations, the `Restored` condition, container exits), events from
 * the snapshot agent, the checkpoint objects' status, the agent's timing summaries, and snapshotctl's
 * `key=value` output. Input is kubectl's raw JSON / log text; old and new names are both accepted.
 * zod schemas are loose: only the fields used are typed, everything else passes through.
 */
import { z } from 'zod';

export const RESTORE_STATUS_PREFIX = 'nvidia.com/snapshot-restore-status.';

const Condition = z.looseObject({
  type: z.string(),
  status: z.string().optional(),
  reason: z.string().optional(),
  message: z.string().optional(),
  lastTransitionTime: z.string().optional(),
});

const Terminated = z.looseObject({ exitCode: z.number().int().optional(), signal: z.number().int().optional(), reason: z.string().optional(), finishedAt: z.string().optional() });
const ContainerStatus = z.looseObject({
  name: z.string(),
  ready: z.boolean().optional(),
  restartCount: z.number().int().optional(),
  state: z.looseObject({ terminated: Terminated.optional(), running: z.looseObject({}).optional() }).optional(),
  lastState: z.looseObject({ terminated: Terminated.optional() }).optional(),
});

const Pod = z.looseObject({
  metadata: z.looseObject({
    name: z.string(),
    namespace: z.string().optional(),
    labels: z.record(z.string(), z.string()).optional(),
    annotations: z.record(z.string(), z.string()).optional(),
  }),
  status: z.looseObject({ phase: z.string().optional(), conditions: z.array(Condition).optional(), containerStatuses: z.array(ContainerStatus).optional() }).optional(),
});

export type RestoreStatus = 'in_progress' | 'completed' | 'failed';

export interface PodSnapshotState {
  name: string;
  phase?: string;
  role: 'checkpoint-source' | 'restore-target' | 'other';
  checkpointId?: string;
  /** `nvidia.com/snapshot-restore-status.<container>` per container. */
  restoreStatus: Record<string, RestoreStatus | string>;
  /** The newer pod condition (`nvidia.com/Restored`, `snapshot/Restored` or `Restored`). */
  restored?: { status?: string; reason?: string; message?: string };
  ready: Record<string, boolean>;
  /** A container that ended: exit code / signal, as the kubelet reports it. */
  terminated: Record<string, { exitCode?: number; signal?: number; reason?: string }>;
}

export function parsePod(json: unknown): PodSnapshotState {
  const pod = Pod.parse(json);
  const labels = pod.metadata.labels ?? {};
  const ann = pod.metadata.annotations ?? {};
  const restoreStatus: Record<string, string> = {};
  for (const [k, v] of Object.entries(ann)) if (k.startsWith(RESTORE_STATUS_PREFIX)) restoreStatus[k.slice(RESTORE_STATUS_PREFIX.length)] = v;
  const cond = pod.status?.conditions?.find((c) => /(^|\/)Restored$/.test(c.type));
  const ready: Record<string, boolean> = {};
  const terminated: PodSnapshotState['terminated'] = {};
  for (const cs of pod.status?.containerStatuses ?? []) {
    ready[cs.name] = cs.ready ?? false;
    const t = cs.state?.terminated ?? cs.lastState?.terminated;
    if (t) terminated[cs.name] = { exitCode: t.exitCode, signal: t.signal, reason: t.reason };
  }
  return {
    name: pod.metadata.name,
    phase: pod.status?.phase,
    role: labels['nvidia.com/snapshot-is-checkpoint-source'] === 'true' ? 'checkpoint-source' : labels['nvidia.com/snapshot-is-restore-target'] === 'true' ? 'restore-target' : 'other',
    checkpointId: labels['nvidia.com/snapshot-checkpoint-id'],
    restoreStatus,
    restored: cond ? { status: cond.status, reason: cond.reason, message: cond.message } : undefined,
    ready,
    terminated,
  };
}

const Event = z.looseObject({
  reason: z.string().optional(),
  type: z.string().optional(),
  message: z.string().optional(),
  source: z.looseObject({ component: z.string().optional() }).optional(),
  reportingComponent: z.string().optional(),
  involvedObject: z.looseObject({ kind: z.string().optional(), name: z.string().optional() }).optional(),
  lastTimestamp: z.string().nullable().optional(),
  eventTime: z.string().nullable().optional(),
  firstTimestamp: z.string().nullable().optional(),
});

export const SNAPSHOT_EVENT_REASONS = ['RestoreRequested', 'RestoreSucceeded', 'RestoreFailed', 'RestoreWorkerFailed', 'RestoreCleanupFailed', 'CheckpointFailed', 'RestoreIncompatible'];

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
      at: when ? Date.parse(when) : undefined,
    });
  }
  return out.sort((a, b) => (a.at ?? 0) - (b.at ?? 0));
}

const CheckpointObject = z.looseObject({
  kind: z.string().optional(),
  metadata: z.looseObject({ name: z.string() }),
  status: z
    .looseObject({
      phase: z.string().optional(),
      message: z.string().optional(),
      identityHash: z.string().optional(),
      jobName: z.string().optional(),
      location: z.string().optional(),
      conditions: z.array(Condition).optional(),
    })
    .optional(),
});

export interface CheckpointState {
  kind: string;
  name: string;
  /** ready / failed / pending, from DynamoCheckpoint.status.phase or PodSnapshot(Content) conditions. */
  state: 'ready' | 'failed' | 'pending';
  reason?: string;
  message?: string;
  location?: string;
}

/** DynamoCheckpoint (`status.phase`), PodSnapshot / PodSnapshotContent (conditions Ready / Failed). */
export function parseCheckpoint(json: unknown): CheckpointState {
  const o = CheckpointObject.parse(json);
  const st = o.status ?? {};
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

/** Go durations ("1m2.5s", "523ms", "1.2µs") or plain numbers (seconds) → ms. */
export function parseDurationMs(v: string | number): number | undefined {
  if (typeof v === 'number') return Number.isFinite(v) ? v * 1000 : undefined;
  const s = v.trim().replace(/^"|"$/g, '');
  if (/^-?\d+(\.\d+)?$/.test(s)) return Number(s) * 1000;
  const unit: Record<string, number> = { h: 3600_000, m: 60_000, s: 1000, ms: 1, us: 0.001, 'µs': 0.001, ns: 0.000001 };
  let total = 0;
  let matched = '';
  for (const m of s.matchAll(/(\d+(?:\.\d+)?)(h|ms|m|s|us|µs|ns)/g)) {
    total += Number(m[1]) * unit[m[2]!]!;
    matched += m[0];
  }
  return matched.length > 0 && matched === s ? total : undefined;
}

export interface TimingSummary {
  kind: 'checkpoint' | 'restore';
  fieldsMs: Record<string, number>;
  /** Non-duration fields (gpu_device_map may be a mapping; ids). */
  other: Record<string, string>;
}

const SUMMARY = /(Checkpoint|Restore) timing summary/;

function keyValues(line: string): Record<string, string> {
  const out: Record<string, string> = {};
  const trimmed = line.trim();
  const jsonStart = trimmed.indexOf('{');
  if (jsonStart >= 0) {
    try {
      const o = JSON.parse(trimmed.slice(jsonStart)) as Record<string, unknown>;
      for (const [k, v] of Object.entries(o)) out[k] = typeof v === 'string' ? v : JSON.stringify(v);
      return out;
    } catch {
      /* logr's text format below */
    }
  }
  // logr / klog text: "key"="value" or key="value" or key=value
  for (const m of line.matchAll(/"?([A-Za-z_][\w.-]*)"?=("(?:[^"\\]|\\.)*"|\S+)/g)) {
    out[m[1]!] = m[2]!.startsWith('"') ? (JSON.parse(m[2]!) as string) : m[2]!;
  }
  return out;
}

/** Every `Checkpoint timing summary` / `Restore timing summary` line in an agent log. */
export function parseTimingSummaries(log: string): TimingSummary[] {
  const out: TimingSummary[] = [];
  for (const line of log.split('\n')) {
    const m = SUMMARY.exec(line);
    if (!m) continue;
    const fieldsMs: Record<string, number> = {};
    const other: Record<string, string> = {};
    for (const [k, v] of Object.entries(keyValues(line))) {
      if (['msg', 'message', 'level', 'ts', 'time', 'logger', 'caller'].includes(k)) continue;
      const d = parseDurationMs(v);
      if (d !== undefined && !/_id$|^pod$|^container|^checkpoint_id$/.test(k)) fieldsMs[k] = d;
      else other[k] = v;
    }
    out.push({ kind: m[1] === 'Checkpoint' ? 'checkpoint' : 'restore', fieldsMs, other });
  }
  return out;
}

/** snapshotctl (older generation) prints `key=value` lines while it polls; the last value wins. */
export function parseSnapshotctl(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of text.split('\n')) {
    const m = /^\s*([a-z_]+)=(.*)$/.exec(line);
    if (m) out[m[1]!] = m[2]!.trim();
  }
  return out;
}

/** The agent's own lifecycle lines (§6 "agent" rows), for evidence. */
export const AGENT_LINES: readonly [RegExp, string][] = [
  [/Source container not ready, awaiting quiesce/, 'waiting for ready-for-snapshot'],
  [/=== Starting checkpoint operation ===/, 'checkpoint started'],
  [/Checkpoint container failed/, 'checkpoint container failed'],
  [/Restore target detected, triggering external restore/, 'restore requested'],
  [/=== Starting external restore ===/, 'restore started'],
  [/=== External restore completed ===/, 'restore completed'],
];

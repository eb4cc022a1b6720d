/**
 * ai-dynamo/snapshot's custom objects as kubectl returns them (api/v1alpha1 podsnapshot_types.go,
 * podsnapshotcontent_types.go, snapshotjob_types.go, storage_types.go; docs/reference/api.md):
 *
 * - `PodSnapshot` (namespaced): `spec.source.podRef.{name,uid,containers}`,
 *   `status.boundSnapshotContentName`, conditions `Ready` / `Failed`; label `nvidia.com/snapshot-job`.
 * - `PodSnapshotContent` (cluster-scoped, made by the operator): `spec.snapshotRef`,
 *   `spec.source.{podRef,nodeName}`, optional `spec.storage.storeID`; conditions `Ready` (reason
 *   `Captured`) / `Failed`; `status.source.{node,pod,devices}` written with Ready; newer releases
 *   `status.storage.artifacts[].{containerName,artifactHandle,artifactFormatVersion}`.
 * - `SnapshotJob` (namespaced): `status.{podSnapshotName,startedAt,completedAt}`, conditions
 *   `Running` / `Captured` / `Completed` / `Failed`.
 *
 * zod schemas are loose: only what is read is typed, and a field of the wrong type is dropped, not fatal.
 */
import { z } from 'zod';
import { Condition, loose, optText, time, type ConditionIn } from './schema';

export interface ConditionState {
  status: string;
  reason?: string;
  message?: string;
  at?: number;
}

const Meta = z.looseObject({
  name: z.string(),
  namespace: optText,
  uid: optText,
  creationTimestamp: optText,
  labels: z.record(z.string(), z.string()).nullish(),
});

function conditions(list: ConditionIn[] | null | undefined): Record<string, ConditionState> {
  const out: Record<string, ConditionState> = {};
  for (const c of list ?? []) out[c.type] = { status: c.status ?? 'Unknown', reason: c.reason, message: c.message, at: time(c.lastTransitionTime) };
  return out;
}

export type ObjectState = 'ready' | 'failed' | 'pending';

/** Ready / Failed conditions → one state (Failed wins: the agent's failure is sticky). */
function readyFailed(c: Record<string, ConditionState>): ObjectState {
  if (c.Failed?.status === 'True') return 'failed';
  if (c.Ready?.status === 'True') return 'ready';
  return 'pending';
}

const PodSnapshot = z.looseObject({
  kind: optText,
  metadata: Meta,
  spec: loose(z.looseObject({ source: loose(z.looseObject({ podRef: loose(z.looseObject({ name: optText, uid: optText, containers: z.array(z.string()).nullish() })) })) })),
  status: loose(z.looseObject({ boundSnapshotContentName: optText, conditions: z.array(Condition).nullish() })),
});

export interface PodSnapshotObject {
  kind: 'PodSnapshot';
  name: string;
  namespace?: string;
  uid?: string;
  createdAt?: number;
  sourcePod?: string;
  containers: string[];
  contentName?: string;
  /** the SnapshotJob that made it (label nvidia.com/snapshot-job) */
  job?: string;
  conditions: Record<string, ConditionState>;
  state: ObjectState;
}

export function parsePodSnapshot(json: unknown): PodSnapshotObject {
  const o = PodSnapshot.parse(json);
  const c = conditions(o.status?.conditions);
  return {
    kind: 'PodSnapshot',
    name: o.metadata.name,
    namespace: o.metadata.namespace,
    uid: o.metadata.uid,
    createdAt: time(o.metadata.creationTimestamp),
    sourcePod: o.spec?.source?.podRef?.name,
    containers: o.spec?.source?.podRef?.containers ?? [],
    contentName: o.status?.boundSnapshotContentName,
    job: o.metadata.labels?.['nvidia.com/snapshot-job'],
    conditions: c,
    state: readyFailed(c),
  };
}

const Content = z.looseObject({
  metadata: Meta,
  spec: loose(
    z.looseObject({
      snapshotRef: loose(z.looseObject({ name: optText, namespace: optText })),
      source: loose(z.looseObject({ nodeName: optText, podRef: loose(z.looseObject({ name: optText, containers: z.array(z.string()).nullish() })) })),
      storage: loose(z.looseObject({ storeID: optText })),
    }),
  ),
  status: loose(
    z.looseObject({
      conditions: z.array(Condition).nullish(),
      source: loose(
        z.looseObject({
          node: loose(z.looseObject({ name: optText, architecture: optText, kernelVersion: optText })),
          pod: loose(z.looseObject({ image: optText, imageDigest: optText, memory: optText, cpu: optText })),
          devices: loose(z.looseObject({ nvidia: loose(z.looseObject({ driverVersion: optText, instances: z.array(z.looseObject({ productName: optText, migProfile: optText })).nullish() })) })),
        }),
      ),
      storage: loose(z.looseObject({ artifacts: z.array(z.looseObject({ containerName: optText, artifactHandle: optText, artifactFormatVersion: optText })).nullish() })),
    }),
  ),
});

export interface SnapshotContentObject {
  kind: 'PodSnapshotContent';
  name: string;
  uid?: string;
  createdAt?: number;
  snapshot?: { namespace?: string; name?: string };
  node?: string;
  sourcePod?: string;
  storeId?: string;
  artifacts: { container?: string; handle?: string; format?: string }[];
  /** what the capture ran on (status.source), in words for the views */
  capturedOn: string[];
  conditions: Record<string, ConditionState>;
  state: ObjectState;
}

export function parseSnapshotContent(json: unknown): SnapshotContentObject {
  const o = Content.parse(json);
  const c = conditions(o.status?.conditions);
  const src = o.status?.source;
  const gpus = (src?.devices?.nvidia?.instances ?? []).map((g) => `${g.productName ?? 'GPU'}${g.migProfile ? ` (MIG ${g.migProfile})` : ''}`);
  const capturedOn = [
    src?.node?.architecture || src?.node?.kernelVersion ? `node ${[src.node.architecture, src.node.kernelVersion].filter(Boolean).join(', kernel ')}` : '',
    src?.pod?.image ? `image ${src.pod.image}${src.pod.imageDigest ? ` (${src.pod.imageDigest})` : ''}` : '',
    src?.pod?.memory || src?.pod?.cpu ? `limits ${[src.pod.memory && `memory ${src.pod.memory}`, src.pod.cpu && `cpu ${src.pod.cpu}`].filter(Boolean).join(', ')}` : '',
    src?.devices?.nvidia?.driverVersion || gpus.length ? `GPUs ${gpus.join(', ') || '?'}${src?.devices?.nvidia?.driverVersion ? `, driver ${src.devices.nvidia.driverVersion}` : ''}` : '',
  ].filter(Boolean);
  return {
    kind: 'PodSnapshotContent',
    name: o.metadata.name,
    uid: o.metadata.uid,
    createdAt: time(o.metadata.creationTimestamp),
    snapshot: o.spec?.snapshotRef ? { namespace: o.spec.snapshotRef.namespace, name: o.spec.snapshotRef.name } : undefined,
    node: src?.node?.name ?? o.spec?.source?.nodeName ?? o.metadata.labels?.['nvidia.com/snapshot-node'],
    sourcePod: o.spec?.source?.podRef?.name,
    storeId: o.spec?.storage?.storeID,
    artifacts: (o.status?.storage?.artifacts ?? []).map((a) => ({ container: a.containerName, handle: a.artifactHandle, format: a.artifactFormatVersion })),
    capturedOn,
    conditions: c,
    state: readyFailed(c),
  };
}

/**
 * Where the artifact lives, as far as the object says: the published handles (releases with
 * `status.storage`), else the PVC layout every release uses (`<basePath>/artifacts/<content UID>`,
 * api/v1alpha1 artifact.go; basePath is the chart's `storage.pvc.basePath`, default /checkpoints).
 */
export function storageLocation(c: SnapshotContentObject): string {
  const handles = c.artifacts.filter((a) => a.handle).map((a) => `${a.container ? `${a.container}: ` : ''}${a.handle}`);
  if (handles.length) return `${c.storeId ? `store ${c.storeId.slice(0, 17)}… ` : ''}${handles.join(', ')}`;
  return c.uid ? `checkpoint PVC: <basePath>/artifacts/${c.uid}` : 'not published by this release';
}

const Job = z.looseObject({
  metadata: Meta,
  spec: loose(z.looseObject({ podSnapshotTemplate: loose(z.looseObject({ targetContainers: z.array(z.string()).nullish() })) })),
  status: loose(z.looseObject({ podSnapshotName: optText, startedAt: optText, completedAt: optText, conditions: z.array(Condition).nullish() })),
});

export type SnapshotJobState = 'pending' | 'running' | 'captured' | 'completed' | 'failed';

export interface SnapshotJobObject {
  kind: 'SnapshotJob';
  name: string;
  namespace?: string;
  uid?: string;
  createdAt?: number;
  podSnapshotName?: string;
  targetContainers: string[];
  startedAt?: number;
  completedAt?: number;
  conditions: Record<string, ConditionState>;
  state: SnapshotJobState;
}

export function parseSnapshotJob(json: unknown): SnapshotJobObject {
  const o = Job.parse(json);
  const c = conditions(o.status?.conditions);
  const t = (k: string) => c[k]?.status === 'True';
  const state: SnapshotJobState = t('Failed') ? 'failed' : t('Completed') ? 'completed' : t('Captured') ? 'captured' : t('Running') ? 'running' : 'pending';
  return {
    kind: 'SnapshotJob',
    name: o.metadata.name,
    namespace: o.metadata.namespace,
    uid: o.metadata.uid,
    createdAt: time(o.metadata.creationTimestamp),
    podSnapshotName: o.status?.podSnapshotName,
    targetContainers: o.spec?.podSnapshotTemplate?.targetContainers ?? [],
    startedAt: time(o.status?.startedAt),
    completedAt: time(o.status?.completedAt),
    conditions: c,
    state,
  };
}

/** The items of a `kubectl get a,b -o json` List, sorted by kind; foreign or broken items are counted, not fatal. */
export function splitSnapshotList(json: unknown): { snapshots: PodSnapshotObject[]; jobs: SnapshotJobObject[]; contents: SnapshotContentObject[]; skipped: number } {
  const items = z.looseObject({ items: z.array(z.unknown()) }).safeParse(json);
  const out = { snapshots: [] as PodSnapshotObject[], jobs: [] as SnapshotJobObject[], contents: [] as SnapshotContentObject[], skipped: 0 };
  for (const item of items.success ? items.data.items : []) {
    const kind = (item as { kind?: unknown } | null)?.kind;
    try {
      if (kind === 'PodSnapshot') out.snapshots.push(parsePodSnapshot(item));
      else if (kind === 'SnapshotJob') out.jobs.push(parseSnapshotJob(item));
      else if (kind === 'PodSnapshotContent') out.contents.push(parseSnapshotContent(item));
      else out.skipped++;
    } catch {
      out.skipped++;
    }
  }
  return out;
}

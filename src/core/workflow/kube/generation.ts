/**
 * Which snapshot API a cluster serves, from the `nvidia.com` resources it advertises
 * (`kubectl api-resources --api-group=nvidia.com -o name`):
 *
 * - `snapshot` — ai-dynamo/snapshot's own API: `PodSnapshot`, `PodSnapshotContent`, `SnapshotJob`
 *   (api/v1alpha1/crds), restore asked with the pod annotation `nvidia.com/restore-from` and reported
 *   by the pod condition `nvidia.com/Restored`; the agent's dump ends the source (snapshot#101).
 * - `dynamo` — before dynamo#14076: Dynamo's `DynamoCheckpoint` (its operator may already drive a
 *   `PodSnapshot` under it, dynamo#10951), restore reported by the per-container annotation
 *   `nvidia.com/snapshot-restore-status.<container>`, pods marked with the role labels.
 * - `unknown` — neither is served (no CRDs, or discovery not allowed): both sets of signals are judged.
 */

export type ApiGeneration = 'snapshot' | 'dynamo' | 'unknown';

export interface GenerationInfo {
  generation: ApiGeneration;
  /** the snapshot resources the cluster advertises (plural.group) */
  resources: string[];
  /** for verdicts: "Snapshot API (PodSnapshot …)" */
  label: string;
}

export const SNAPSHOT_RESOURCES = ['podsnapshots.nvidia.com', 'podsnapshotcontents.nvidia.com', 'snapshotjobs.nvidia.com'] as const;
export const DYNAMO_CHECKPOINT_RESOURCE = 'dynamocheckpoints.nvidia.com';

export function detectGeneration(names: readonly string[]): GenerationInfo {
  const set = new Set(names.map((n) => n.trim().toLowerCase()).filter(Boolean));
  const snapshot = SNAPSHOT_RESOURCES.filter((r) => set.has(r));
  const resources = [...(set.has(DYNAMO_CHECKPOINT_RESOURCE) ? [DYNAMO_CHECKPOINT_RESOURCE] : []), ...snapshot];
  if (set.has(DYNAMO_CHECKPOINT_RESOURCE)) {
    return { generation: 'dynamo', resources, label: `Dynamo DynamoCheckpoint API (before dynamo#14076${snapshot.length ? `; PodSnapshot beside it` : ''})` };
  }
  if (set.has('podsnapshots.nvidia.com')) {
    const kinds = snapshot.map((r) => KIND[r]).join(', ');
    return { generation: 'snapshot', resources, label: `Snapshot API (${kinds}, nvidia.com/v1alpha1)` };
  }
  return { generation: 'unknown', resources, label: 'no snapshot API served (neither PodSnapshot nor DynamoCheckpoint is advertised)' };
}

const KIND: Record<string, string> = {
  'podsnapshots.nvidia.com': 'PodSnapshot',
  'podsnapshotcontents.nvidia.com': 'PodSnapshotContent',
  'snapshotjobs.nvidia.com': 'SnapshotJob',
};

/** The kind of the object `kubernetes.checkpoint` / `kubernetes.snapshot` names in this generation. */
export function snapshotObjectKind(g: ApiGeneration): 'PodSnapshot' | 'DynamoCheckpoint' {
  return g === 'dynamo' ? 'DynamoCheckpoint' : 'PodSnapshot';
}

/**
 * snapshotctl, in the three generations that exist, told apart by what its help names:
 *
 * - `snapshot` — ai-dynamo/snapshot operator/cmd/snapshotctl today: both subcommands require
 *   `--snapshot` (the PodSnapshot's name); `checkpoint --manifest --snapshot --container`,
 *   `restore --manifest --snapshot` (it creates the restore pod from the manifest); `--namespace`,
 *   `--kube-context`. Prints `status=`, `pod_snapshot=`, `bound_content=`, `restore_pod=`.
 * - `checkpoint-id` — the same tool at ai-dynamo/snapshot b7e707c: `checkpoint --manifest
 *   --container [--checkpoint-id]`, `restore --pod|--manifest --containers --checkpoint-id`,
 *   `--namespace`, `--kube-context`.
 * - `checkpoint-hash` — Dynamo's older deploy/snapshot/cmd/snapshotctl: `checkpoint --manifest
 *   [--checkpoint-hash]`, `restore --manifest --checkpoint-hash`, `--namespace`; no `--kube-context`
 *   (it uses the kubeconfig's current context).
 *
 * Every value is passed as one `--flag=value` word (Go's flag package reads it so), so no name or
 * path can be taken for an option of its own.
 */

export type SnapshotctlGeneration = 'snapshot' | 'checkpoint-id' | 'checkpoint-hash' | 'unknown';

/** From the output of `snapshotctl --help` (or `snapshotctl checkpoint --help`, whose flag list uses one dash). */
export function snapshotctlGeneration(help: string): SnapshotctlGeneration {
  if (/(^|[\s[])--?snapshot(?![\w-])/m.test(help)) return 'snapshot';
  if (/(^|[\s[])--?checkpoint-id\b/m.test(help)) return 'checkpoint-id';
  if (/(^|[\s[])--?checkpoint-hash\b/m.test(help)) return 'checkpoint-hash';
  return 'unknown';
}

export const SNAPSHOTCTL_GENERATION_TITLES: Record<SnapshotctlGeneration, string> = {
  snapshot: 'ai-dynamo/snapshot snapshotctl (--snapshot)',
  'checkpoint-id': 'ai-dynamo/snapshot snapshotctl, before --snapshot (--checkpoint-id)',
  'checkpoint-hash': "Dynamo's older snapshotctl (--checkpoint-hash, no --kube-context)",
  unknown: 'snapshotctl of unknown generation (its help names neither --snapshot, --checkpoint-id nor --checkpoint-hash)',
};

export interface SnapshotctlRequest {
  action: 'checkpoint' | 'restore';
  namespace?: string;
  kubeContext?: string;
  manifest?: string;
  /** PodSnapshot name (today's snapshotctl) */
  snapshot?: string;
  /** existing restore target (checkpoint-id generation) */
  pod?: string;
  containers: string[];
  /** checkpoint id / hash (older generations) */
  checkpointId?: string;
}

/** What a request lacks for this generation (undefined: complete). Phrased with the profile fields to set. */
export function snapshotctlMissing(g: SnapshotctlGeneration, r: SnapshotctlRequest): string | undefined {
  const needs: string[] = [];
  if (g === 'snapshot' || g === 'unknown') {
    if (!r.manifest) needs.push(r.action === 'checkpoint' ? 'kubernetes.manifest' : 'kubernetes.restoreManifest (or kubernetes.manifest)');
    if (!r.snapshot) needs.push('kubernetes.snapshot (the PodSnapshot name; kubernetes.checkpoint works too)');
  } else if (g === 'checkpoint-id') {
    if (r.action === 'checkpoint' && !r.manifest) needs.push('kubernetes.manifest');
    if (r.action === 'restore' && !r.pod && !r.manifest) needs.push('kubernetes.restorePod (no restore-target pod observed)');
    if (r.action === 'restore' && !r.checkpointId) needs.push('kubernetes.checkpointId (the restore pod has no nvidia.com/snapshot-checkpoint-id label)');
  } else {
    if (!r.manifest) needs.push(r.action === 'checkpoint' ? 'kubernetes.manifest' : 'kubernetes.restoreManifest (or kubernetes.manifest)');
    if (r.action === 'restore' && !r.checkpointId) needs.push('kubernetes.checkpointId (the restore pod has no nvidia.com/snapshot-checkpoint-id label)');
  }
  return needs.length ? `snapshotctl ${r.action} (${SNAPSHOTCTL_GENERATION_TITLES[g]}) needs ${needs.join(' and ')}` : undefined;
}

/** Argv after the profile's snapshotctl prefix. */
export function snapshotctlArgs(g: SnapshotctlGeneration, r: SnapshotctlRequest): string[] {
  const a: string[] = [r.action];
  const flag = (name: string, value: string | undefined) => {
    if (value !== undefined && value !== '') a.push(`--${name}=${value}`);
  };
  if (g === 'snapshot' || g === 'unknown') {
    flag('manifest', r.manifest);
    flag('snapshot', r.snapshot);
    if (r.action === 'checkpoint') flag('container', r.containers[0] ?? 'main');
  } else if (g === 'checkpoint-id') {
    // Restore into the observed restore-target pod when there is one (in place), else a new pod from the manifest.
    if (r.action === 'restore' && r.pod) flag('pod', r.pod);
    else flag('manifest', r.manifest);
    if (r.action === 'checkpoint') flag('container', r.containers[0] ?? 'main');
    else flag('containers', r.containers.join(','));
    flag('checkpoint-id', r.checkpointId);
  } else {
    flag('manifest', r.manifest);
    flag('checkpoint-hash', r.checkpointId);
  }
  flag('namespace', r.namespace);
  if (g !== 'checkpoint-hash') flag('kube-context', r.kubeContext);
  return a;
}

/** snapshotctl prints `key=value` lines (the older ones while they poll); the last value wins. */
export function parseSnapshotctl(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of text.split('\n')) {
    const m = /^\s*([a-z_]+)=(.*)$/.exec(line);
    if (m) out[m[1]!] = m[2]!.trim();
  }
  return out;
}

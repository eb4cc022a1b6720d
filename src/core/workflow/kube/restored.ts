/**
 * The pod condition `nvidia.com/Restored` that the snapshot agent writes on a pod annotated
 * `nvidia.com/restore-from` (ai-dynamo/snapshot api/podcontract: `RestoredCondition`, the stable
 * reasons, `ClassifyRestoreOutcome`; docs/reference/restore-pod-contract.md), mapped to what a run
 * says about it. Every reason upstream writes has a verdict here; a reason this release does not
 * know is "unknown" (upstream's own version-skew policy), so the run keeps watching and names it.
 *
 * Incompatible restores (snapshot#97: refused before CRIU) carry the differing facts in the
 * condition message and the `RestoreIncompatible` event, in api/compat's shape
 * `<check>: source <value>, target <value>` joined with "; " — parsed so the verdict names them.
 */

export const RESTORED_CONDITION = 'nvidia.com/Restored';

export type RestoreVerdict = 'pending' | 'succeeded' | 'failed' | 'partial' | 'incompatible' | 'unknown';

export interface ReasonMeaning {
  verdict: RestoreVerdict;
  /** in words, for the verdict and the views */
  says: string;
}

/** Reasons of `nvidia.com/Restored` (api/podcontract and agent-internal waits), with what each means. */
export const RESTORED_REASONS: Record<string, ReasonMeaning> = {
  RestoreInProgress: { verdict: 'pending', says: 'restore under way' },
  RestoreReplenishing: { verdict: 'pending', says: 'restoring replacement containers after a successful restore' },
  SnapshotPending: { verdict: 'pending', says: 'waiting for the PodSnapshot to become Ready' },
  ArtifactPending: { verdict: 'pending', says: 'waiting for the checkpoint artifact' },
  RestoreSucceeded: { verdict: 'succeeded', says: 'every destination container restored' },
  RestoreFailed: { verdict: 'failed', says: 'the restore failed; a new restore pod is needed' },
  RestorePartiallySucceeded: { verdict: 'partial', says: 'some destination containers restored, others not; a new restore pod is needed' },
  RestoreIncompatible: { verdict: 'incompatible', says: 'refused before CRIU: this node or pod cannot run the checkpoint' },
  RestoreReplenishmentIncompatible: { verdict: 'incompatible', says: 'a replacement container cannot be restored here (compatibility refused)' },
};

export interface RestoredCondition {
  status?: string;
  reason?: string;
  message?: string;
  at?: number;
}

/** The verdict for a Restored condition (absent: pending). True is success whatever the reason says. */
export function classifyRestored(c: RestoredCondition | undefined): ReasonMeaning & { reason?: string } {
  if (!c) return { verdict: 'pending', says: 'no nvidia.com/Restored condition yet (the agent has not picked the pod up)' };
  if (c.status === 'True') return { ...RESTORED_REASONS.RestoreSucceeded!, reason: c.reason };
  if (c.status !== 'False') return { verdict: 'unknown', says: `condition status ${c.status ?? '(none)'} with reason ${c.reason ?? '(none)'}`, reason: c.reason };
  const known = c.reason ? RESTORED_REASONS[c.reason] : undefined;
  if (known) return { ...known, reason: c.reason };
  return { verdict: 'unknown', says: `reason ${c.reason ?? '(none)'} is not one this workbench knows (a newer agent?)`, reason: c.reason };
}

export interface Mismatch {
  check: string;
  source: string;
  target: string;
}

/** `memory-limit: source 4Gi, target 1Gi; cpu-arch: source amd64, target arm64` (api/compat Reasons). */
export function parseMismatches(text: string | undefined): Mismatch[] {
  const out: Mismatch[] = [];
  const body = (text ?? '').replace(/^.*?refused as incompatible:\s*/i, '');
  for (const part of body.split(';')) {
    const m = /^\s*([a-z0-9][a-z0-9-]*):\s*source\s+(.*?),\s*target\s+(.*?)\s*$/i.exec(part);
    if (m) out.push({ check: m[1]!, source: m[2]!, target: m[3]! });
  }
  return out;
}

/** "memory-limit differs (captured with 4Gi, this target has 1Gi)". */
export function describeMismatch(m: Mismatch): string {
  return `${m.check} differs (captured with ${m.source}, this target has ${m.target})`;
}

/** `nvidia.com/restore-container-map`: `main=engine-0,main=engine-1` → pairs (malformed pairs skipped). */
export function parseContainerMap(value: string | undefined): { source: string; destination: string }[] {
  const out: { source: string; destination: string }[] = [];
  for (const pair of (value ?? '').split(',')) {
    const m = /^\s*([^=\s]+)\s*=\s*([^=\s]+)\s*$/.exec(pair);
    if (m) out.push({ source: m[1]!, destination: m[2]! });
  }
  return out;
}

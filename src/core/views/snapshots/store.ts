/**
 * The cluster's snapshot objects as the Snapshots view shows them, kept current from one
 * `kubectl get --watch` per resource (PodSnapshot, PodSnapshotContent, SnapshotJob, pods): each
 * watch event is parsed once and replaces that object (O(1) per event); the tree is built from the
 * maps only when it is drawn. Pods are kept only when they restore from a snapshot
 * (`nvidia.com/restore-from`), so a namespace with thousands of pods costs a parse per event and no
 * memory. A restored pod's restore time is the stretch between the first `RestoreInProgress` the
 * watch saw and `Restored=True` (the agent's own condition times), else — when the view opened after
 * the fact — from pod creation to `Restored=True`, said so.
 */
import { parsePod, type PodState } from '../../workflow/kube/parse';
import { classifyRestored, type RestoreVerdict } from '../../workflow/kube/restored';
import { parsePodSnapshot, parseSnapshotContent, parseSnapshotJob, type PodSnapshotObject, type SnapshotContentObject, type SnapshotJobObject } from '../../workflow/kube/snapshotObjects';

export type WatchedResource = 'podsnapshot' | 'podsnapshotcontent' | 'snapshotjob' | 'pods';
export type WatchType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';

export interface RestoredPod {
  pod: PodState;
  verdict: RestoreVerdict;
  reason?: string;
  says: string;
  /** ms from the restore start to Restored=True, and what that span is */
  restoreMs?: number;
  restoreSpan?: 'in progress → restored' | 'pod created → restored';
}

export class SnapshotStore {
  readonly snapshots = new Map<string, PodSnapshotObject>();
  readonly contents = new Map<string, SnapshotContentObject>();
  readonly jobs = new Map<string, SnapshotJobObject>();
  /** restore-from pods by name, and their names by the snapshot they restore from */
  readonly restored = new Map<string, PodState>();
  private readonly restoredBySnapshot = new Map<string, Set<string>>();
  /** SnapshotJob names by the PodSnapshot they produce */
  private readonly jobsBySnapshot = new Map<string, Set<string>>();
  /** first RestoreInProgress transition seen per pod (ms) */
  private readonly inProgressAt = new Map<string, number>();
  /** bumped on every change that can alter the tree */
  version = 0;
  /** events that could not be parsed (garbage from the cluster is counted, never fatal) */
  skipped = 0;
  /** the last ERROR watch event per resource (RBAC, a missing CRD …) */
  readonly errors = new Map<WatchedResource, string>();

  constructor(readonly namespace: string | undefined) {}

  /** One watch event; returns whether the tree may have changed. */
  apply(resource: WatchedResource, type: WatchType, object: unknown): boolean {
    if (type === 'BOOKMARK') return false;
    if (type === 'ERROR') {
      const m = (object as { message?: unknown } | null)?.message;
      this.errors.set(resource, typeof m === 'string' ? m : 'the watch reported an error');
      this.version++;
      return true;
    }
    try {
      return this.applyObject(resource, type === 'DELETED', object);
    } catch {
      this.skipped++;
      return false;
    }
  }

  private applyObject(resource: WatchedResource, deleted: boolean, object: unknown): boolean {
    switch (resource) {
      case 'podsnapshot': {
        const s = parsePodSnapshot(object);
        if (this.namespace && s.namespace && s.namespace !== this.namespace) return false;
        if (deleted) this.snapshots.delete(s.name);
        else this.snapshots.set(s.name, s);
        break;
      }
      case 'podsnapshotcontent': {
        const c = parseSnapshotContent(object);
        // Cluster-scoped: keep those bound into this namespace.
        if (this.namespace && c.snapshot?.namespace && c.snapshot.namespace !== this.namespace) return false;
        if (deleted) this.contents.delete(c.name);
        else this.contents.set(c.name, c);
        break;
      }
      case 'snapshotjob': {
        const j = parseSnapshotJob(object);
        this.unindex(this.jobsBySnapshot, this.jobs.get(j.name)?.podSnapshotName, j.name);
        if (deleted) this.jobs.delete(j.name);
        else {
          this.jobs.set(j.name, j);
          this.index(this.jobsBySnapshot, j.podSnapshotName, j.name);
        }
        break;
      }
      case 'pods': {
        // Most of a namespace's pods restore nothing: look at the one annotation before parsing the pod.
        const meta = (object as { metadata?: { name?: unknown; annotations?: Record<string, unknown> | null } } | null)?.metadata;
        const name = typeof meta?.name === 'string' ? meta.name : undefined;
        if (typeof meta?.annotations?.['nvidia.com/restore-from'] !== 'string' || deleted) {
          // A pod that stopped restoring (annotation removed), went away, or never restored.
          if (name === undefined || !this.restored.has(name)) return false;
          this.unindex(this.restoredBySnapshot, this.restored.get(name)!.restoreFrom, name);
          this.restored.delete(name);
          this.inProgressAt.delete(name);
          break;
        }
        const p = parsePod(object);
        if (p.restored?.status === 'False' && p.restored.reason === 'RestoreInProgress' && p.restored.at !== undefined && !this.inProgressAt.has(p.name)) this.inProgressAt.set(p.name, p.restored.at);
        this.unindex(this.restoredBySnapshot, this.restored.get(p.name)?.restoreFrom, p.name);
        this.restored.set(p.name, p);
        this.index(this.restoredBySnapshot, p.restoreFrom, p.name);
        break;
      }
    }
    this.version++;
    return true;
  }

  private index(m: Map<string, Set<string>>, key: string | undefined, name: string): void {
    if (key === undefined) return;
    let set = m.get(key);
    if (!set) m.set(key, (set = new Set()));
    set.add(name);
  }

  private unindex(m: Map<string, Set<string>>, key: string | undefined, name: string): void {
    if (key !== undefined) m.get(key)?.delete(name);
  }

  /** Snapshots, newest first. */
  list(): PodSnapshotObject[] {
    return [...this.snapshots.values()].sort((a, b) => (b.createdAt ?? 0) - (a.createdAt ?? 0) || a.name.localeCompare(b.name));
  }

  contentOf(s: PodSnapshotObject): SnapshotContentObject | undefined {
    if (s.contentName) return this.contents.get(s.contentName);
    for (const c of this.contents.values()) if (c.snapshot?.name === s.name && (!s.namespace || c.snapshot.namespace === s.namespace)) return c;
    return undefined;
  }

  jobsOf(s: PodSnapshotObject): SnapshotJobObject[] {
    const names = new Set(this.jobsBySnapshot.get(s.name));
    if (s.job && this.jobs.has(s.job)) names.add(s.job);
    return [...names].map((n) => this.jobs.get(n)!).sort((a, b) => a.name.localeCompare(b.name));
  }

  /** How many pods restore from `s` (the top level shows the count without building their rows). */
  restoredCount(s: PodSnapshotObject): number {
    return this.restoredBySnapshot.get(s.name)?.size ?? 0;
  }

  restoredFrom(s: PodSnapshotObject): RestoredPod[] {
    const out: RestoredPod[] = [];
    for (const name of this.restoredBySnapshot.get(s.name) ?? []) {
      const p = this.restored.get(name)!;
      const m = classifyRestored(p.restored);
      const r: RestoredPod = { pod: p, verdict: m.verdict, reason: m.reason, says: m.says };
      const done = p.restored?.status === 'True' ? p.restored.at : undefined;
      const from = this.inProgressAt.get(p.name);
      if (done !== undefined && from !== undefined && done >= from) {
        r.restoreMs = done - from;
        r.restoreSpan = 'in progress → restored';
      } else if (done !== undefined && p.createdAt !== undefined && done >= p.createdAt) {
        r.restoreMs = done - p.createdAt;
        r.restoreSpan = 'pod created → restored';
      }
      out.push(r);
    }
    return out.sort((a, b) => a.pod.name.localeCompare(b.pod.name));
  }
}

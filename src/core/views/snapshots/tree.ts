/**
 * The Snapshots view's rows, built from the store (pure, so the shapes are unit-tested):
 *
 *   PodSnapshot  (Ready / Failed / pending, age, source pod)
 *   ├─ PodSnapshotContent  (node, Ready / Failed)
 *   │   ├─ size · node · storage location · age · captured on …
 *   ├─ SnapshotJob  (Running / Captured / Completed / Failed)
 *   └─ restored pod  (Restored reason, restore time)
 *
 * Only the rows of an expanded node are built, so hundreds of snapshots cost one row each.
 */
import { formatDuration } from '../phases';
import type { PodSnapshotObject } from '../../workflow/kube/snapshotObjects';
import { storageLocation } from '../../workflow/kube/snapshotObjects';
import type { SnapshotStore } from './store';

export type RowState = 'ready' | 'failed' | 'pending' | 'running' | 'info';

export interface SnapshotRow {
  /** stable id (tree item id): kind/name[/detail] */
  id: string;
  kind: 'snapshot' | 'content' | 'detail' | 'job' | 'restored' | 'message';
  label: string;
  description?: string;
  tooltip: string;
  state: RowState;
  /** the object behind the row, for the actions (YAML, compare, restore, agent log) */
  object?: { kind: 'PodSnapshot' | 'PodSnapshotContent' | 'SnapshotJob' | 'Pod'; name: string; namespace?: string };
  /** the PodSnapshot this row belongs to */
  snapshot?: string;
  expandable: boolean;
}

/** "12 s", "5 min", "3 h", "2 d" since `t`. */
export function age(t: number | undefined, now: number): string {
  if (t === undefined) return '';
  const s = Math.max(0, Math.round((now - t) / 1000));
  if (s < 90) return `${s} s`;
  if (s < 90 * 60) return `${Math.round(s / 60)} min`;
  if (s < 36 * 3600) return `${Math.round(s / 3600)} h`;
  return `${Math.round(s / 86400)} d`;
}

const cond = (c: Record<string, { status: string; reason?: string; message?: string }>) =>
  Object.entries(c).map(([t, v]) => `${t}=${v.status}${v.reason ? ` (${v.reason})` : ''}${v.message ? `: ${v.message}` : ''}`).join('\n') || 'no conditions yet';

function snapshotRow(s: PodSnapshotObject, store: SnapshotStore, now: number): SnapshotRow {
  const failed = s.conditions.Failed;
  const state: RowState = s.state;
  const word = s.state === 'ready' ? 'Ready' : s.state === 'failed' ? `Failed${failed?.reason ? ` (${failed.reason})` : ''}` : 'capturing';
  const restored = store.restoredCount(s);
  return {
    id: `PodSnapshot/${s.name}`,
    kind: 'snapshot',
    label: s.name,
    description: [word, age(s.createdAt, now), s.sourcePod ? `from ${s.sourcePod}` : '', restored ? `${restored} restored` : ''].filter(Boolean).join(' · '),
    tooltip: `PodSnapshot ${s.namespace ? `${s.namespace}/` : ''}${s.name}\nsource pod ${s.sourcePod ?? '?'} (${s.containers.join(', ') || '?'})\n${cond(s.conditions)}`,
    state,
    object: { kind: 'PodSnapshot', name: s.name, namespace: s.namespace },
    snapshot: s.name,
    expandable: true,
  };
}

/** The view's top level: one row per PodSnapshot, newest first (or a message row when there is none). */
export function snapshotRows(store: SnapshotStore, now = Date.now()): SnapshotRow[] {
  const rows = store.list().map((s) => snapshotRow(s, store, now));
  for (const [resource, message] of store.errors) rows.push({ id: `error/${resource}`, kind: 'message', label: `watching ${resource} failed`, description: message, tooltip: message, state: 'failed', expandable: false });
  return rows;
}

/** The children of a row (built when it is expanded). */
export function childRows(store: SnapshotStore, row: SnapshotRow, now = Date.now()): SnapshotRow[] {
  const s = row.snapshot ? store.snapshots.get(row.snapshot) : undefined;
  if (!s) return [];
  if (row.kind === 'snapshot') {
    const out: SnapshotRow[] = [];
    const c = store.contentOf(s);
    if (c) {
      out.push({
        id: `PodSnapshot/${s.name}/content`,
        kind: 'content',
        label: c.name,
        description: [c.state === 'ready' ? 'Ready' : c.state === 'failed' ? `Failed${c.conditions.Failed?.reason ? ` (${c.conditions.Failed.reason})` : ''}` : 'pending', c.node ? `node ${c.node}` : ''].filter(Boolean).join(' · '),
        tooltip: `PodSnapshotContent ${c.name} (cluster-scoped)\n${cond(c.conditions)}`,
        state: c.state,
        object: { kind: 'PodSnapshotContent', name: c.name },
        snapshot: s.name,
        expandable: true,
      });
    } else {
      out.push({ id: `PodSnapshot/${s.name}/content`, kind: 'message', label: 'no PodSnapshotContent bound yet', tooltip: 'The operator binds one when it picks the PodSnapshot up; the agent captures into it.', state: 'pending', snapshot: s.name, expandable: false });
    }
    for (const j of store.jobsOf(s)) {
      const t = (k: string) => j.conditions[k];
      const word = j.state === 'failed' ? `Failed${t('Failed')?.reason ? ` (${t('Failed')!.reason})` : ''}` : j.state === 'completed' ? 'Completed' : j.state === 'captured' ? 'Captured' : j.state === 'running' ? 'Running' : 'pending';
      out.push({
        id: `PodSnapshot/${s.name}/job/${j.name}`,
        kind: 'job',
        label: `SnapshotJob ${j.name}`,
        description: [word, j.startedAt !== undefined && j.completedAt !== undefined ? `took ${formatDuration(j.completedAt - j.startedAt)}` : age(j.createdAt, now)].filter(Boolean).join(' · '),
        tooltip: `SnapshotJob ${j.name}\n${cond(j.conditions)}`,
        state: j.state === 'failed' ? 'failed' : j.state === 'completed' || j.state === 'captured' ? 'ready' : 'running',
        object: { kind: 'SnapshotJob', name: j.name, namespace: j.namespace },
        snapshot: s.name,
        expandable: false,
      });
    }
    for (const r of store.restoredFrom(s)) {
      const state: RowState = r.verdict === 'succeeded' ? 'ready' : r.verdict === 'pending' || r.verdict === 'unknown' ? 'running' : 'failed';
      const timing = r.restoreMs !== undefined ? `restored in ${formatDuration(r.restoreMs)}${r.restoreSpan === 'pod created → restored' ? ' (since pod creation)' : ''}` : '';
      out.push({
        id: `PodSnapshot/${s.name}/pod/${r.pod.name}`,
        kind: 'restored',
        label: r.pod.name,
        description: [r.reason ?? (r.pod.restored ? r.pod.restored.status : 'not picked up'), timing, r.pod.node ? `node ${r.pod.node}` : ''].filter(Boolean).join(' · '),
        tooltip: `pod ${r.pod.name} restores from ${s.name}${r.pod.containerMap.length ? ` (${r.pod.containerMap.map((m) => `${m.source}→${m.destination}`).join(', ')})` : ''}\nnvidia.com/Restored: ${r.pod.restored ? `${r.pod.restored.status} ${r.pod.restored.reason ?? ''}${r.pod.restored.message ? `: ${r.pod.restored.message}` : ''}` : 'not set'}\n${r.says}${r.restoreSpan ? `\nrestore time: ${r.restoreSpan}` : ''}`,
        state,
        object: { kind: 'Pod', name: r.pod.name, namespace: r.pod.namespace },
        snapshot: s.name,
        expandable: false,
      });
    }
    return out;
  }
  if (row.kind === 'content') {
    const c = store.contentOf(s);
    if (!c) return [];
    const detail = (key: string, label: string, description: string, tooltip = `${label}: ${description}`): SnapshotRow => ({ id: `PodSnapshot/${s.name}/content/${key}`, kind: 'detail', label, description, tooltip, state: 'info', snapshot: s.name, expandable: false });
    return [
      detail('size', 'size', 'not published by the Snapshot API', 'Neither PodSnapshotContent nor the agent log carries the artifact size; look at the checkpoint volume.'),
      detail('node', 'node', c.node ?? 'unknown'),
      detail('storage', 'storage', storageLocation(c)),
      detail('age', 'age', age(c.createdAt, now)),
      detail('state', c.state === 'failed' ? 'Failed' : c.state === 'ready' ? 'Ready' : 'pending', (c.state === 'failed' ? c.conditions.Failed?.message : c.conditions.Ready?.message) ?? '', cond(c.conditions)),
      ...c.capturedOn.map((text, i) => detail(`on${i}`, 'captured on', text)),
    ];
  }
  return [];
}

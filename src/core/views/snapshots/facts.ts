/**
 * One snapshot as aligned `key: value` lines, the same keys in the same order for every snapshot, so
 * "Compare Snapshots" can put two side by side in a diff editor and only what differs is marked:
 * the capture (state, source, node, what it ran on: image, limits, GPUs, driver, kernel), storage,
 * its SnapshotJobs and the pods restored from it with their outcome and restore time.
 */
import { formatDuration } from '../phases';
import { storageLocation } from '../../workflow/kube/snapshotObjects';
import type { SnapshotStore } from './store';

export function snapshotFacts(store: SnapshotStore, name: string): string {
  const s = store.snapshots.get(name);
  if (!s) return `PodSnapshot ${name}: not in the namespace any more\n`;
  const c = store.contentOf(s);
  const lines: [string, string][] = [
    ['PodSnapshot', `${s.namespace ? `${s.namespace}/` : ''}${s.name}`],
    ['state', s.state],
    ['conditions', Object.entries(s.conditions).map(([t, v]) => `${t}=${v.status}${v.reason ? `(${v.reason})` : ''}`).join(', ') || '-'],
    ['created', s.createdAt !== undefined ? new Date(s.createdAt).toISOString() : '-'],
    ['source pod', `${s.sourcePod ?? '-'} [${s.containers.join(', ')}]`],
    ['content', c?.name ?? s.contentName ?? '-'],
    ['content state', c?.state ?? '-'],
    ['node', c?.node ?? '-'],
    ['storage', c ? storageLocation(c) : '-'],
  ];
  const on = c?.capturedOn ?? [];
  for (const key of ['node', 'image', 'limits', 'GPUs']) lines.push([`captured on ${key}`, on.find((x) => x.startsWith(`${key} `))?.slice(key.length + 1) ?? '-']);
  const jobs = store.jobsOf(s);
  lines.push(['snapshot jobs', jobs.map((j) => `${j.name} ${j.state}${j.startedAt !== undefined && j.completedAt !== undefined ? ` in ${formatDuration(j.completedAt - j.startedAt)}` : ''}`).join(', ') || '-']);
  const restored = store.restoredFrom(s);
  lines.push(['restored pods', String(restored.length)]);
  for (const r of restored) lines.push([`  ${r.pod.name}`, `${r.reason ?? r.verdict}${r.restoreMs !== undefined ? `, ${formatDuration(r.restoreMs)} (${r.restoreSpan})` : ''}${r.pod.node ? `, node ${r.pod.node}` : ''}`]);
  const width = Math.max(...lines.map(([k]) => k.length));
  return `${lines.map(([k, v]) => `${k.padEnd(width)}  ${v}`).join('\n')}\n`;
}

/**
 * The Snapshots view with hundreds of objects: N PodSnapshots, each with its PodSnapshotContent, a
 * SnapshotJob and R restore-from pods, plus P unrelated pods in the namespace, arrive as the watch
 * streams them (`kubectl get --watch --output-watch-events -o json`: pretty-printed, concatenated,
 * in 64 KiB chunks). Measured, in the same run:
 *   ours   — split the stream (transport/jsonStream.ts), parse each document, apply it to the store,
 *            then draw the top level and expand every snapshot (the whole tree), as the view does;
 *   anchor — `JSON.parse` of the same documents, pre-split: the least any consumer of the watch pays.
 * Printed: both times, the ratio, the largest single synchronous piece (one chunk of a watch's
 * output: what one stdout 'data' event costs the extension host), one top-level redraw, the rows built.
 *
 *   node scripts/build.mjs && node --expose-gc out/bench/views/snapshots.bench.js [--snapshots 500] [--restored 2] [--pods 2000] [--rounds 5]
 */
import { jsonSplitter } from '../../src/transport/jsonStream';
import { SnapshotStore, type WatchedResource } from '../../src/core/views/snapshots/store';
import { childRows, snapshotRows } from '../../src/core/views/snapshots/tree';

const arg = (name: string, dflt: number): number => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : dflt;
};
const N = arg('snapshots', 500);
const R = arg('restored', 2);
const P = arg('pods', 2000);
const rounds = arg('rounds', 5);
const ns = 'llm';
const iso = (t: number) => new Date(t).toISOString();
const t0 = Date.parse('2026-11-30T00:00:00Z');
const cond = (type: string, status: string, reason: string, at: number, message = '') => ({ type, status, reason, message, lastTransitionTime: iso(at) });

/** The watch events, resource by resource, in the order the four watches would deliver them. */
function events(): { resource: WatchedResource; text: string }[] {
  const out: { resource: WatchedResource; text: string }[] = [];
  const push = (resource: WatchedResource, type: string, object: unknown) => out.push({ resource, text: JSON.stringify({ type, object }, null, 4) });
  for (let i = 0; i < N; i++) {
    const name = `model-${i}-snap`;
    const content = `podsnapshotcontent-${i.toString(16).padStart(8, '0')}-8d2b-4c11-9a3e-0b7d4f2e9c61`;
    const at = t0 + i * 60_000;
    const failed = i % 10 === 9;
    push('podsnapshot', 'ADDED', { apiVersion: 'nvidia.com/v1alpha1', kind: 'PodSnapshot', metadata: { name, namespace: ns, uid: `ps-${i}`, creationTimestamp: iso(at), labels: { 'nvidia.com/snapshot-job': `model-${i}-job` } }, spec: { source: { podRef: { name: `model-${i}-source`, containers: ['main'] } } }, status: { boundSnapshotContentName: content, conditions: [failed ? cond('Failed', 'True', 'CheckpointFailed', at + 30_000, 'cuda-checkpoint-helper: CUDA_ERROR_NOT_SUPPORTED') : cond('Ready', 'True', 'Captured', at + 30_000, 'Checkpoint captured and verified')] } });
    push('podsnapshotcontent', 'ADDED', { apiVersion: 'nvidia.com/v1alpha1', kind: 'PodSnapshotContent', metadata: { name: content, uid: `c-${i}`, creationTimestamp: iso(at), labels: { 'nvidia.com/snapshot-node': `gpu-node-${i % 16}` } }, spec: { snapshotRef: { namespace: ns, name }, source: { podRef: { name: `model-${i}-source`, containers: ['main'] }, nodeName: `gpu-node-${i % 16}` } }, status: { conditions: [cond('Ready', 'True', 'Captured', at + 30_000, 'Checkpoint captured and verified')], source: { node: { name: `gpu-node-${i % 16}`, architecture: 'amd64', kernelVersion: '6.8.0-57' }, pod: { image: 'nvcr.io/vllm:1.6', memory: '32Gi' }, devices: { nvidia: { driverVersion: '580.82.07', instances: [{ productName: 'NVIDIA H200' }] } } } } });
    push('snapshotjob', 'ADDED', { apiVersion: 'nvidia.com/v1alpha1', kind: 'SnapshotJob', metadata: { name: `model-${i}-job`, namespace: ns }, spec: { podTemplate: { spec: { containers: [{ name: 'main', image: 'x' }] } }, podSnapshotTemplate: { targetContainers: ['main'] } }, status: { podSnapshotName: name, startedAt: iso(at), completedAt: iso(at + 31_000), conditions: ['Running', 'Captured', 'Completed', 'Failed'].map((t) => cond(t, t === 'Failed' ? 'False' : 'True', 'CaptureCompleted', at + 31_000)) } });
    for (let r = 0; r < R; r++) {
      const pod = (reason: string, status: string, when: number) => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name: `model-${i}-restore-${r}`, namespace: ns, creationTimestamp: iso(at + 40_000), annotations: { 'nvidia.com/restore-from': name } }, spec: { nodeName: `gpu-node-${(i + r) % 16}`, containers: [{ name: 'main', image: 'x' }] }, status: { phase: 'Running', conditions: [cond('nvidia.com/Restored', status, reason, when)] } });
      push('pods', 'ADDED', pod('RestoreInProgress', 'False', at + 41_000));
      push('pods', 'MODIFIED', pod('RestoreSucceeded', 'True', at + 45_000));
    }
  }
  // The rest of the namespace: pods that restore nothing (each still parsed once).
  for (let i = 0; i < P; i++) push('pods', 'ADDED', { apiVersion: 'v1', kind: 'Pod', metadata: { name: `web-${i}`, namespace: ns, labels: { app: 'web' } }, spec: { nodeName: 'cpu-node', containers: [{ name: 'web', image: 'nginx' }] }, status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] } });
  return out;
}

function chunks(text: string, size = 64 * 1024): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

const all = events();
const byResource = new Map<WatchedResource, string[]>();
for (const e of all) byResource.set(e.resource, [...(byResource.get(e.resource) ?? []), e.text]);
const streams = [...byResource.entries()].map(([resource, docs]) => ({ resource, chunks: chunks(docs.join('\n')), docs }));
const bytes = streams.reduce((n, s) => n + s.chunks.reduce((m, c) => m + c.length, 0), 0);

/** Largest synchronous piece: one 64 KiB chunk of a watch split, parsed and applied (what one 'data' event costs the host). */
let worstChunkMs = 0;

function ours(): { ms: number; rows: number; store: SnapshotStore } {
  const t = performance.now();
  const store = new SnapshotStore(ns);
  for (const s of streams) {
    const split = jsonSplitter((text) => {
      const e = JSON.parse(text) as { type: 'ADDED'; object: unknown };
      store.apply(s.resource, e.type, e.object);
    }, () => undefined);
    for (const c of s.chunks) {
      const tc = performance.now();
      split.push(c);
      worstChunkMs = Math.max(worstChunkMs, performance.now() - tc);
    }
  }
  // Draw: the top level, then every snapshot expanded, every content expanded.
  let rows = 0;
  for (const top of snapshotRows(store, t0 + N * 60_000)) {
    rows++;
    for (const kid of childRows(store, top, t0 + N * 60_000)) {
      rows++;
      if (kid.kind === 'content') rows += childRows(store, kid, t0 + N * 60_000).length;
    }
  }
  return { ms: performance.now() - t, rows, store };
}

function anchor(): number {
  const t = performance.now();
  let n = 0;
  for (const s of streams) for (const d of s.docs) n += (JSON.parse(d) as { type: string }).type.length;
  if (n === 0) throw new Error('nothing parsed');
  return performance.now() - t;
}

const gc = (globalThis as { gc?: () => void }).gc;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
// Warm both paths first (JIT), then alternate.
ours();
anchor();
worstChunkMs = 0;
const o: number[] = [];
const a: number[] = [];
let rows = 0;
for (let i = 0; i < rounds; i++) {
  gc?.();
  a.push(anchor());
  gc?.();
  const r = ours();
  o.push(r.ms);
  rows = r.rows;
}
// The top level alone, as the view draws it on every coalesced refresh.
const { store } = ours();
const tTop = performance.now();
for (let i = 0; i < 20; i++) snapshotRows(store, t0 + N * 60_000);
const topMs = (performance.now() - tTop) / 20;
console.log(`snapshots bench: ${N} PodSnapshots (+${N} contents, ${N} SnapshotJobs, ${N * R} restored pods with 2 events each), ${P} other pods: ${all.length} watch events, ${(bytes / 1048576).toFixed(1)} MiB`);
console.log(`anchor JSON.parse of the pre-split documents: median ${median(a).toFixed(1)} ms`);
console.log(`ours: split + parse + store + whole tree (${rows} rows): median ${median(o).toFixed(1)} ms (all rounds: ${o.map((x) => x.toFixed(1)).join(', ')})`);
console.log(`ratio ours / anchor: ${(median(o) / median(a)).toFixed(2)}`);
console.log(`largest synchronous piece (one 64 KiB watch chunk: split, parse, apply): ${worstChunkMs.toFixed(1)} ms`);
console.log(`top level (${store.snapshots.size} rows) per redraw: ${topMs.toFixed(2)} ms; kept: ${store.snapshots.size} snapshots, ${store.contents.size} contents, ${store.jobs.size} jobs, ${store.restored.size} restored pods (the ${P} other pods are not kept)`);

/**
 * The Snapshots view's model (core/views/snapshots): watch events of the four resources, as kubectl
 * --output-watch-events prints them, kept per object; the tree rows PodSnapshot → content (node,
 * storage, age, state, captured on) → SnapshotJobs → restored pods (reason, restore time); the facts
 * two snapshots are compared by; and the concatenated-JSON splitter the watches read with.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { snapshotFacts } from '../../../src/core/views/snapshots/facts';
import { SnapshotStore } from '../../../src/core/views/snapshots/store';
import { childRows, snapshotRows } from '../../../src/core/views/snapshots/tree';
import { jsonSplitter } from '../../../src/transport/jsonStream';
import * as k from '../workflow/fixtures/kube';

const NOW = Date.parse('2026-11-30T06:15:00Z');

function pod(name: string, reason: string, status: 'True' | 'False', at: string, from = 'llama-snap') {
  return { metadata: { name, namespace: 'dynamo', creationTimestamp: '2026-11-30T06:09:58Z', annotations: { 'nvidia.com/restore-from': from } }, spec: { nodeName: 'gpu-node-4' }, status: { phase: 'Running', conditions: [{ type: 'nvidia.com/Restored', status, reason, message: reason === 'RestoreIncompatible' ? 'memory-limit: source 32Gi, target 1Gi' : '', lastTransitionTime: at }] } };
}

function filled(): SnapshotStore {
  const s = new SnapshotStore('dynamo');
  s.apply('podsnapshot', 'ADDED', k.podSnapshotReady);
  s.apply('podsnapshot', 'ADDED', { ...k.podSnapshotFailed, metadata: { name: 'ps-broken', namespace: 'dynamo', creationTimestamp: '2026-11-30T05:00:00Z' } });
  s.apply('podsnapshotcontent', 'ADDED', k.contentReady);
  s.apply('snapshotjob', 'ADDED', k.snapshotJobCompleted);
  // A restore watched from the start: InProgress at :00, True at :04.
  s.apply('pods', 'ADDED', pod('llama-restore-0', 'RestoreInProgress', 'False', '2026-11-30T06:10:00Z'));
  s.apply('pods', 'MODIFIED', pod('llama-restore-0', 'RestoreSucceeded', 'True', '2026-11-30T06:10:04Z'));
  s.apply('pods', 'ADDED', pod('llama-restore-1', 'RestoreIncompatible', 'False', '2026-11-30T06:11:00Z'));
  return s;
}

describe('Snapshots view model', () => {
  it('one row per PodSnapshot, newest first, with state, age, source and restored count', () => {
    const rows = snapshotRows(filled(), NOW);
    assert.deepEqual(rows.map((r) => r.label), ['llama-snap', 'ps-broken']);
    assert.equal(rows[0]!.description, 'Ready · 6 min · from llama-job-source-x7 · 2 restored');
    assert.equal(rows[0]!.state, 'ready');
    assert.match(rows[1]!.description!, /^Failed \(CheckpointFailed\) · 75 min/);
    assert.equal(rows[1]!.state, 'failed');
  });

  it('children: the content, its SnapshotJob and the restored pods with reason and restore time', () => {
    const s = filled();
    const [top] = snapshotRows(s, NOW);
    const kids = childRows(s, top!, NOW);
    assert.deepEqual(kids.map((r) => `${r.kind} ${r.label} | ${r.description}`), [
      'content podsnapshotcontent-5e0c | Ready · node gpu-node-3',
      'job SnapshotJob llama-job | Completed · took 21.0 s',
      'restored llama-restore-0 | RestoreSucceeded · restored in 4.00 s · node gpu-node-4',
      'restored llama-restore-1 | RestoreIncompatible · node gpu-node-4',
    ]);
    assert.equal(kids[3]!.state, 'failed');
    assert.match(kids[3]!.tooltip, /memory-limit: source 32Gi, target 1Gi/);
    const content = childRows(s, kids[0]!, NOW);
    assert.deepEqual(content.map((r) => `${r.label}: ${r.description}`), [
      'size: not published by the Snapshot API',
      'node: gpu-node-3',
      `storage: store store-v1-aaaaaaaa… main: artifacts/5e0c6a1f/containers/main`,
      'age: 6 min',
      'Ready: Checkpoint captured and verified',
      'captured on: node amd64, kernel 6.8.0-57',
      'captured on: image nvcr.io/vllm:1.6',
      'captured on: limits memory 32Gi',
      'captured on: GPUs NVIDIA H200, driver 580.82.07',
    ]);
  });

  it('a restore seen only after the fact is timed from pod creation, and says so', () => {
    const s = new SnapshotStore('dynamo');
    s.apply('podsnapshot', 'ADDED', k.podSnapshotReady);
    s.apply('pods', 'ADDED', pod('late', 'RestoreSucceeded', 'True', '2026-11-30T06:10:08Z'));
    const kids = childRows(s, snapshotRows(s, NOW)[0]!, NOW);
    assert.match(kids.find((r) => r.label === 'late')!.description!, /restored in 10.0 s \(since pod creation\)/);
  });

  it('deletions, other namespaces, pods that restore nothing, bookmarks, errors and garbage', () => {
    const s = filled();
    const v = s.version;
    assert.equal(s.apply('pods', 'ADDED', { metadata: { name: 'web-1', namespace: 'dynamo' }, status: {} }), false, 'a pod that restores nothing is not kept');
    assert.equal(s.restored.size, 2);
    assert.equal(s.apply('podsnapshot', 'ADDED', { ...k.podSnapshotReady, metadata: { ...k.podSnapshotReady.metadata, namespace: 'other', name: 'x' } }), false);
    assert.equal(s.apply('podsnapshotcontent', 'BOOKMARK', {}), false);
    assert.equal(s.version, v);
    s.apply('pods', 'DELETED', pod('llama-restore-1', 'RestoreIncompatible', 'False', '2026-11-30T06:11:00Z'));
    s.apply('podsnapshot', 'DELETED', { ...k.podSnapshotFailed, metadata: { name: 'ps-broken', namespace: 'dynamo' } });
    assert.deepEqual(snapshotRows(s, NOW).map((r) => r.label), ['llama-snap']);
    assert.equal(s.apply('snapshotjob', 'ADDED', { metadata: 'garbage' }), false);
    assert.equal(s.skipped, 1);
    s.apply('podsnapshot', 'ERROR', { kind: 'Status', message: 'podsnapshots.nvidia.com is forbidden: User "dev" cannot watch resource' });
    assert.match(snapshotRows(s, NOW).at(-1)!.description!, /forbidden/);
  });

  it('facts of two snapshots line up key by key for the diff editor', () => {
    const s = filled();
    const a = snapshotFacts(s, 'llama-snap').split('\n');
    const b = snapshotFacts(s, 'ps-broken').split('\n');
    const keys = (lines: string[]) => lines.map((l) => l.split(/\s{2,}/)[0]).slice(0, 15);
    assert.deepEqual(keys(a), keys(b));
    assert.ok(a.some((l) => /^captured on GPUs\s+NVIDIA H200, driver 580.82.07$/.test(l)));
    assert.ok(a.some((l) => /^\s+llama-restore-0\s+RestoreSucceeded, 4.00 s \(in progress → restored\), node gpu-node-4$/.test(l)));
    assert.ok(b.some((l) => /^state\s+failed$/.test(l)));
    assert.match(snapshotFacts(s, 'gone'), /not in the namespace any more/);
  });
});

describe('concatenated JSON (kubectl get --watch -o json)', () => {
  const docs = [{ type: 'ADDED', object: { metadata: { name: 'a' }, s: 'brace } in "a" string \\" {' } }, { type: 'MODIFIED', object: { list: [1, { x: '[' }] } }, { type: 'DELETED', object: {} }];
  const text = docs.map((d) => JSON.stringify(d, null, 4)).join('\n');

  it('splits at any chunk boundary, strings and escapes included', () => {
    for (const size of [1, 2, 3, 7, 64, text.length]) {
      const got: unknown[] = [];
      const split = jsonSplitter((t) => got.push(JSON.parse(t)), () => assert.fail('oversize'));
      for (let i = 0; i < text.length; i += size) split.push(text.slice(i, i + size));
      assert.deepEqual(got, docs, `chunks of ${size}`);
      assert.equal(split.pending(), 0);
    }
  });

  it('drops a document larger than the bound and goes on with the next', () => {
    const got: unknown[] = [];
    let over = 0;
    const split = jsonSplitter((t) => got.push(JSON.parse(t)), () => over++, 100);
    split.push(`{"big": "${'x'.repeat(200)}`);
    split.push('"}\n{"small": 1}');
    assert.equal(over, 1);
    assert.deepEqual(got, [{ small: 1 }]);
  });
});

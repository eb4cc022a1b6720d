import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { judgeKubeCapture, judgeKubeRestore, judgeKubeSourceExit, snapshotctlArgs, watchKube, type KubeObservation } from '../../../src/core/workflow/kube/observe';
import { parseCheckpoint, parseDurationMs, parseEvents, parsePod, parseSnapshotctl, parseTimingSummaries } from '../../../src/core/workflow/kube/parse';
import * as k from './fixtures/kube';

const obs = (over: Partial<KubeObservation>): KubeObservation => ({ container: 'main', pods: [], events: [], ...over });

describe('kubectl JSON and agent log parsing', () => {
  it('reads the restore-status annotation per container and the Restored condition', () => {
    const p = parsePod(k.restorePodCompleted);
    assert.equal(p.role, 'restore-target');
    assert.equal(p.checkpointId, 'a1b2c3d4e5f60718');
    assert.deepEqual(p.restoreStatus, { main: 'completed' });
    assert.deepEqual(p.restored, { status: 'True', reason: 'RestoreSucceeded', message: undefined });
    assert.equal(parsePod(k.restorePodConditionOnly).restored?.reason, 'RestoreFailed');
    assert.deepEqual(parsePod(k.sourcePodSegv).terminated.main, { exitCode: 139, signal: undefined, reason: 'Error' });
  });

  it('keeps only snapshot events, oldest first, with eventTime or lastTimestamp', () => {
    const ev = parseEvents(k.events);
    assert.deepEqual(ev.map((e) => e.reason), ['RestoreRequested', 'RestoreSucceeded']);
    assert.equal(ev[0]!.object, 'Pod/vllm-worker-restore-7f9c');
  });

  it('reads DynamoCheckpoint phases and PodSnapshot conditions', () => {
    assert.deepEqual(parseCheckpoint(k.dynamoCheckpointReady), { kind: 'DynamoCheckpoint', name: 'llama-8b-vllm', state: 'ready', reason: 'Ready', message: undefined, location: 'pvc://snapshot-pvc/checkpoints/a1b2c3d4e5f60718' });
    const f = parseCheckpoint(k.podSnapshotFailed);
    assert.equal(f.state, 'failed');
    assert.equal(f.reason, 'CheckpointFailed');
  });

  it('parses Go durations', () => {
    assert.equal(parseDurationMs('9.213s'), 9213);
    assert.equal(parseDurationMs('1m2.5s'), 62500);
    assert.equal(parseDurationMs('640ms'), 640);
    assert.equal(parseDurationMs('2'), 2000);
    assert.equal(parseDurationMs('GPU-1=GPU-2'), undefined);
  });

  it('reads both timing summaries from logr text and JSON lines', () => {
    const [cp, rs] = parseTimingSummaries(k.agentLog);
    assert.equal(cp!.kind, 'checkpoint');
    assert.deepEqual(cp!.fieldsMs, { duration: 9213, gpu_device_map: 12, cuda_checkpoint: 3100, criu_dump: 5200, overlay_capture: 640, remove_old_version_and_switch: 8, unaccounted: 253, started_to_complete: 9500 });
    assert.equal(cp!.other.checkpoint_id, 'a1b2c3d4e5f60718');
    assert.equal(rs!.kind, 'restore');
    assert.equal(rs!.fieldsMs.criu_restore, 2200);
    assert.equal(rs!.fieldsMs.started_to_complete, 3900);
    assert.equal(rs!.other.container, 'main');
  });

  it('reads snapshotctl key=value output (last value wins)', () => {
    assert.deepEqual(parseSnapshotctl(k.snapshotctlOld), { status: 'Ready', checkpoint_job: 'checkpoint-job-a1b2c3d4e5f60718-1', checkpoint_hash: 'a1b2c3d4e5f60718', checkpoint_location: '/checkpoints/a1b2c3d4e5f60718' });
  });
});

describe('kube observation verdicts', () => {
  it('restore: in_progress keeps watching, completed passes with agent timings, failed fails', () => {
    assert.equal(judgeKubeRestore(obs({ pods: [parsePod(k.restorePodInProgress)] })), undefined);
    const ok = judgeKubeRestore(obs({ pods: [parsePod(k.restorePodCompleted)], events: parseEvents(k.events), agentLog: k.agentLog }))!;
    assert.equal(ok.state, 'passed');
    assert.match(ok.verdict, /completed \(agent: 3900 ms from restore target detected\)/);
    assert.ok(ok.evidence.some((e) => e.kind === 'timing' && e.text === 'restore criu_restore' && e.valueMs === 2200));
    assert.ok(ok.evidence.some((e) => /RestoreSucceeded/.test(e.text)));
    assert.ok(ok.evidence.some((e) => /External restore completed/.test(e.text)));
    const bad = judgeKubeRestore(obs({ pods: [parsePod(k.restorePodInProgress)], events: parseEvents(k.failedEvents) }))!;
    assert.equal(bad.state, 'failed');
    assert.match(bad.verdict, /nsrestore: criu restore exited 1/);
    assert.equal(judgeKubeRestore(obs({ pods: [parsePod(k.restorePodConditionOnly)] }))!.state, 'failed');
  });

  it('capture: checkpoint Ready passes with the timing summary; Failed fails with the reason', () => {
    const ok = judgeKubeCapture(obs({ checkpoint: parseCheckpoint(k.dynamoCheckpointReady), agentLog: k.agentLog }))!;
    assert.equal(ok.state, 'passed');
    assert.match(ok.verdict, /agent: 9213 ms/);
    const bad = judgeKubeCapture(obs({ checkpoint: parseCheckpoint(k.podSnapshotFailed) }))!;
    assert.equal(bad.state, 'failed');
    assert.match(bad.verdict, /CheckpointFailed: cuda-checkpoint-helper/);
  });

  it('source exit: 0 passes, 139 is SIGSEGV', () => {
    assert.equal(judgeKubeSourceExit(obs({ pods: [parsePod(k.sourcePodClean)] }))!.state, 'passed');
    const v = judgeKubeSourceExit(obs({ pods: [parsePod(k.sourcePodSegv)] }))!;
    assert.equal(v.state, 'failed');
    assert.match(v.verdict, /139 \(SIGSEGV\)/);
  });

  it('builds snapshotctl argv', () => {
    assert.deepEqual(snapshotctlArgs({ action: 'restore', pod: 'p', containers: ['main', 'engine-1'], checkpointId: 'abc', namespace: 'dynamo' }), ['restore', '--pod', 'p', '--containers', 'main,engine-1', '--namespace', 'dynamo', '--checkpoint-id', 'abc']);
    assert.deepEqual(snapshotctlArgs({ action: 'checkpoint', manifest: 'pod.yaml', containers: ['main'], namespace: 'ns' }), ['checkpoint', '--manifest', 'pod.yaml', '--container', 'main', '--namespace', 'ns']);
  });

  it('watches until the annotation says completed', async () => {
    let n = 0;
    const source = { pods: async () => [n++ < 2 ? k.restorePodInProgress : k.restorePodCompleted], events: async () => k.events };
    const v = await watchKube(source, 'main', judgeKubeRestore, { pod: parsePod, events: parseEvents, checkpoint: parseCheckpoint }, 5, new AbortController().signal, 10);
    assert.equal(v.state, 'passed');
    assert.equal(n, 3);
  });
});

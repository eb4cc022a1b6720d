import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { detectGeneration } from '../../../src/core/workflow/kube/generation';
import { judgeKubeCapture, judgeKubeRestore, judgeKubeSourceExit, type KubeObservation } from '../../../src/core/workflow/kube/observe';
import { parseCheckpoint, parseEvents, parsePod } from '../../../src/core/workflow/kube/parse';
import { classifyRestored, parseMismatches, RESTORED_REASONS } from '../../../src/core/workflow/kube/restored';
import { parsePodSnapshot, parseSnapshotContent, parseSnapshotJob, storageLocation } from '../../../src/core/workflow/kube/snapshotObjects';
import { parseSnapshotctl, snapshotctlArgs, snapshotctlGeneration, snapshotctlMissing } from '../../../src/core/workflow/kube/snapshotctl';
import { parseDurationMs, parseTimingSummaries } from '../../../src/core/workflow/kube/timing';
import * as k from './fixtures/kube';
import { SNAPSHOTCTL_HELP, SNAPSHOTCTL_HELP_CHECKPOINT_ID } from './support/kubeScenario';

const obs = (over: Partial<KubeObservation>): KubeObservation => ({ container: 'main', generation: 'dynamo', pods: [], events: [], ...over });
const today = (over: Partial<KubeObservation>): KubeObservation => obs({ generation: 'snapshot', snapshot: parsePodSnapshot(k.podSnapshotReady), content: parseSnapshotContent(k.contentReady), ...over });

describe('kubectl JSON and agent log parsing', () => {
  it('reads the restore-status annotation per container and the Restored condition (yesterday)', () => {
    const p = parsePod(k.restorePodCompleted);
    assert.equal(p.role, 'restore-target');
    assert.equal(p.checkpointId, 'a1b2c3d4e5f60718');
    assert.deepEqual(p.restoreStatus, { main: 'completed' });
    assert.deepEqual(p.restored, { status: 'True', reason: 'RestoreSucceeded', message: undefined, at: undefined });
    assert.equal(parsePod(k.restorePodConditionOnly).restored?.reason, 'RestoreFailed');
    assert.deepEqual(parsePod(k.sourcePodSegv).terminated.main, { exitCode: 139, signal: undefined, reason: 'Error', at: Date.parse('2026-11-30T06:09:30Z') });
  });

  it('reads restore-from, the container map and nvidia.com/Restored (today)', () => {
    const p = parsePod(k.restoreFromPod('RestoreInProgress', 'False'));
    assert.equal(p.role, 'restore-target');
    assert.equal(p.restoreFrom, 'llama-snap');
    assert.deepEqual(p.containerMap, [{ source: 'main', destination: 'engine-0' }, { source: 'main', destination: 'engine-1' }]);
    assert.equal(p.restored?.reason, 'RestoreInProgress');
    assert.equal(p.node, 'gpu-node-4');
  });

  it('keeps only snapshot events, oldest first, with eventTime or lastTimestamp', () => {
    const ev = parseEvents(k.events);
    assert.deepEqual(ev.map((e) => e.reason), ['RestoreRequested', 'RestoreSucceeded']);
    assert.equal(ev[0]!.object, 'Pod/vllm-worker-restore-7f9c');
  });

  it('reads DynamoCheckpoint phases', () => {
    assert.deepEqual(parseCheckpoint(k.dynamoCheckpointReady), { kind: 'DynamoCheckpoint', name: 'llama-8b-vllm', state: 'ready', reason: 'Ready', message: undefined, location: 'pvc://snapshot-pvc/checkpoints/a1b2c3d4e5f60718' });
    assert.equal(parseCheckpoint(k.podSnapshotFailed).state, 'failed');
  });

  it('reads PodSnapshot, PodSnapshotContent and SnapshotJob (ai-dynamo/snapshot api/v1alpha1)', () => {
    const s = parsePodSnapshot(k.podSnapshotReady);
    assert.equal(s.state, 'ready');
    assert.equal(s.sourcePod, 'llama-job-source-x7');
    assert.equal(s.contentName, 'podsnapshotcontent-5e0c');
    assert.equal(s.job, 'llama-job');
    assert.equal(parsePodSnapshot(k.podSnapshotFailed).state, 'failed');
    const c = parseSnapshotContent(k.contentReady);
    assert.equal(c.state, 'ready');
    assert.equal(c.node, 'gpu-node-3');
    assert.deepEqual(c.capturedOn, ['node amd64, kernel 6.8.0-57', 'image nvcr.io/vllm:1.6', 'limits memory 32Gi', 'GPUs NVIDIA H200, driver 580.82.07']);
    assert.match(storageLocation(c), /^store store-v1-aaaaaaaa… main: artifacts\/5e0c6a1f\/containers\/main$/);
    assert.equal(storageLocation({ ...c, artifacts: [] }), 'checkpoint PVC: <basePath>/artifacts/5e0c6a1f');
    const j = parseSnapshotJob(k.snapshotJobCompleted);
    assert.equal(j.state, 'completed');
    assert.equal(j.podSnapshotName, 'llama-snap');
    assert.deepEqual(j.targetContainers, ['main']);
    // A field of the wrong type is dropped, not fatal.
    assert.equal(parseSnapshotContent({ metadata: { name: 'x' }, status: { source: 'garbage' } }).capturedOn.length, 0);
  });

  it('parses Go durations', () => {
    assert.equal(parseDurationMs('9.213s'), 9213);
    assert.equal(parseDurationMs('1m2.5s'), 62500);
    assert.equal(parseDurationMs('640ms'), 640);
    assert.equal(parseDurationMs('2'), 2000);
    assert.equal(parseDurationMs('GPU-1=GPU-2'), undefined);
  });

  it('reads flat timing summaries from klog text and JSON lines (older agents)', () => {
    const [cp, rs] = parseTimingSummaries(k.agentLog);
    assert.equal(cp!.kind, 'checkpoint');
    assert.equal(cp!.durationMs, 9213);
    assert.deepEqual(cp!.phases, [{ name: 'gpu_device_map', ms: 12 }, { name: 'cuda_checkpoint', ms: 3100 }, { name: 'criu_dump', ms: 5200 }, { name: 'overlay_capture', ms: 640 }, { name: 'remove_old_version_and_switch', ms: 8 }, { name: 'unaccounted', ms: 253 }]);
    assert.equal(cp!.startedToCompleteMs, 9500);
    assert.equal(cp!.ids.checkpoint_id, 'a1b2c3d4e5f60718');
    assert.equal(rs!.kind, 'restore');
    assert.equal(rs!.phases.find((p) => p.name === 'criu_restore')!.ms, 2200);
    assert.equal(rs!.startedToCompleteMs, 3900);
    assert.equal(rs!.ids.container, 'main');
  });

  it('reads nested zap summaries (today): every phase in order, the wall time, the ids, the line time', () => {
    const [cp, rs] = parseTimingSummaries(k.agentLogToday);
    assert.equal(cp!.durationMs, 9213);
    assert.deepEqual(cp!.phases.map((p) => p.name), ['gpu_device_map', 'cuda_checkpoint', 'criu_dump', 'overlay_capture', 'remove_old_version_and_switch', 'unaccounted']);
    assert.equal(cp!.phases.find((p) => p.name === 'criu_dump')!.ms, 5200);
    assert.equal(cp!.startedToCompleteMs, 9500);
    assert.equal(cp!.ids.content, 'podsnapshotcontent-5e0c');
    assert.equal(cp!.at, Date.parse('2026-11-30T06:09:29.100Z'));
    assert.deepEqual(rs!.phases.map((p) => p.name), ['pagebroker_stage', 'gpu_device_map', 'overlay_capture', 'criu_prepare', 'criu_restore', 'cuda_restore', 'unaccounted']);
    assert.equal(rs!.ids.pod, 'dynamo/vllm-worker-restore-7f9c');
    // The release between: *_duration names, the wall time on its own line.
    const [between] = parseTimingSummaries(k.agentLogBetween);
    assert.deepEqual(between!.phases.map((p) => p.name), ['prepare', 'cuda', 'criu_dump', 'overlay_capture', 'finalize']);
    assert.equal(between!.startedToCompleteMs, 9600);
  });

  it('reads snapshotctl key=value output (last value wins)', () => {
    assert.deepEqual(parseSnapshotctl(k.snapshotctlOld), { status: 'Ready', checkpoint_job: 'checkpoint-job-a1b2c3d4e5f60718-1', checkpoint_hash: 'a1b2c3d4e5f60718', checkpoint_location: '/checkpoints/a1b2c3d4e5f60718' });
  });

  it('tells the API generation from api-resources', () => {
    assert.equal(detectGeneration(['podsnapshotcontents.nvidia.com', 'podsnapshots.nvidia.com', 'snapshotjobs.nvidia.com']).generation, 'snapshot');
    assert.match(detectGeneration(['podsnapshots.nvidia.com', 'snapshotjobs.nvidia.com']).label, /Snapshot API \(PodSnapshot, SnapshotJob/);
    assert.equal(detectGeneration(['dynamocheckpoints.nvidia.com', 'podsnapshots.nvidia.com']).generation, 'dynamo');
    assert.equal(detectGeneration(['dynamographdeployments.nvidia.com']).generation, 'unknown');
  });
});

describe('snapshotctl generations', () => {
  it('tells them apart from --help', () => {
    assert.equal(snapshotctlGeneration(SNAPSHOTCTL_HELP), 'snapshot');
    assert.equal(snapshotctlGeneration(SNAPSHOTCTL_HELP_CHECKPOINT_ID), 'checkpoint-id');
    assert.equal(snapshotctlGeneration('Usage of checkpoint:\n  -checkpoint-hash string\n    Explicit checkpoint hash'), 'checkpoint-hash');
    assert.equal(snapshotctlGeneration('  -snapshot string\n\tRequired. Name of the PodSnapshot to create'), 'snapshot');
    assert.equal(snapshotctlGeneration('usage: snapshotctl'), 'unknown');
  });

  it('builds each generation\'s argv, every value in its flag\'s word, --kube-context where it exists', () => {
    const base = { namespace: 'dynamo', kubeContext: 'prod', manifest: 'pod.yaml', snapshot: 'llama-snap', containers: ['main', 'engine-1'], pod: 'p', checkpointId: 'abc' };
    assert.deepEqual(snapshotctlArgs('snapshot', { action: 'checkpoint', ...base }), ['checkpoint', '--manifest=pod.yaml', '--snapshot=llama-snap', '--container=main', '--namespace=dynamo', '--kube-context=prod']);
    assert.deepEqual(snapshotctlArgs('snapshot', { action: 'restore', ...base }), ['restore', '--manifest=pod.yaml', '--snapshot=llama-snap', '--namespace=dynamo', '--kube-context=prod']);
    assert.deepEqual(snapshotctlArgs('checkpoint-id', { action: 'restore', ...base }), ['restore', '--pod=p', '--containers=main,engine-1', '--checkpoint-id=abc', '--namespace=dynamo', '--kube-context=prod']);
    assert.deepEqual(snapshotctlArgs('checkpoint-id', { action: 'checkpoint', ...base }), ['checkpoint', '--manifest=pod.yaml', '--container=main', '--checkpoint-id=abc', '--namespace=dynamo', '--kube-context=prod']);
    assert.deepEqual(snapshotctlArgs('checkpoint-hash', { action: 'restore', ...base }), ['restore', '--manifest=pod.yaml', '--checkpoint-hash=abc', '--namespace=dynamo']);
    assert.match(snapshotctlMissing('snapshot', { action: 'restore', containers: ['main'] })!, /needs kubernetes.restoreManifest .* and kubernetes.snapshot/);
    assert.equal(snapshotctlMissing('snapshot', { action: 'checkpoint', ...base }), undefined);
  });
});

describe('nvidia.com/Restored reasons', () => {
  it('maps every upstream reason to a verdict', () => {
    const want: Record<string, string> = {
      RestoreInProgress: 'pending', RestoreReplenishing: 'pending', SnapshotPending: 'pending', ArtifactPending: 'pending', RestoreSucceeded: 'succeeded',
      RestoreFailed: 'failed', RestorePartiallySucceeded: 'partial', RestoreIncompatible: 'incompatible', RestoreReplenishmentIncompatible: 'incompatible',
    };
    assert.deepEqual(Object.fromEntries(Object.entries(RESTORED_REASONS).map(([r, m]) => [r, m.verdict])), want);
    for (const [reason, verdict] of Object.entries(want)) assert.equal(classifyRestored({ status: reason === 'RestoreSucceeded' ? 'True' : 'False', reason }).verdict, verdict, reason);
    assert.equal(classifyRestored({ status: 'True' }).verdict, 'succeeded', 'True with an omitted reason is success (ClassifyRestoreOutcome)');
    assert.equal(classifyRestored({ status: 'Unknown', reason: 'RestoreSucceeded' }).verdict, 'unknown');
    assert.equal(classifyRestored({ status: 'False', reason: 'RestoreFromTheFuture' }).verdict, 'unknown');
    assert.equal(classifyRestored(undefined).verdict, 'pending');
  });

  it('parses api/compat mismatches', () => {
    assert.deepEqual(parseMismatches('restore refused as incompatible: memory-limit: source 32Gi, target 1Gi; gpu-driver-version: source 580.82.07, target unknown'), [
      { check: 'memory-limit', source: '32Gi', target: '1Gi' },
      { check: 'gpu-driver-version', source: '580.82.07', target: 'unknown' },
    ]);
    assert.deepEqual(parseMismatches('no such shape'), []);
  });
});

describe('kube observation verdicts', () => {
  it('yesterday\'s restore: in_progress keeps watching, completed passes with agent timings, failed fails', () => {
    assert.equal(judgeKubeRestore(obs({ pods: [parsePod(k.restorePodInProgress)] })), undefined);
    const ok = judgeKubeRestore(obs({ pods: [parsePod(k.restorePodCompleted)], events: parseEvents(k.events), agentLog: k.agentLog }))!;
    assert.equal(ok.state, 'passed');
    assert.match(ok.verdict, /completed \(agent: 3900 ms from restore target detected\)/);
    assert.ok(ok.evidence.some((e) => e.kind === 'timing' && e.phase === 'criu_restore' && e.valueMs === 2200));
    assert.ok(ok.evidence.some((e) => /RestoreSucceeded/.test(e.text)));
    assert.ok(ok.evidence.some((e) => /External restore completed/.test(e.text)));
    const bad = judgeKubeRestore(obs({ pods: [parsePod(k.restorePodInProgress)], events: parseEvents(k.failedEvents) }))!;
    assert.equal(bad.state, 'failed');
    assert.match(bad.verdict, /nsrestore: criu restore exited 1/);
    assert.equal(judgeKubeRestore(obs({ pods: [parsePod(k.restorePodConditionOnly)] }))!.state, 'failed');
  });

  it('today\'s restore: every Restored reason ends in a verdict; Incompatible names the differing facts', () => {
    const at = (reason: string, status: 'True' | 'False', message = '', events = { items: [] as unknown[] }) => judgeKubeRestore(today({ pods: [parsePod(k.restoreFromPod(reason, status, message))], events: parseEvents(events), agentLog: k.agentLogToday }));
    assert.equal(at('RestoreInProgress', 'False'), undefined);
    assert.equal(at('RestoreReplenishing', 'False'), undefined);
    const ok = at('RestoreSucceeded', 'True')!;
    assert.equal(ok.state, 'passed');
    assert.match(ok.verdict, /restore of pod llama-restore-0 from PodSnapshot llama-snap succeeded \(nvidia.com\/Restored=True, RestoreSucceeded\) \(agent: 3.51 s: gpu_device_map 10 ms, criu_prepare 120 ms, criu_restore 2.2 s, cuda_restore 1.1 s, unaccounted 82 ms\)/);
    assert.ok(ok.evidence.some((e) => e.phase === 'criu_restore' && e.valueMs === 2200));
    assert.match(at('RestoreFailed', 'False', 'nsrestore: exit 1')!.verdict, /failed \(RestoreFailed\): nsrestore: exit 1; a failed restore is terminal/);
    assert.match(at('RestorePartiallySucceeded', 'False', 'engine-1 failed')!.verdict, /only partly succeeded .*engine-1 failed/);
    const inc = at('RestoreIncompatible', 'False', 'memory-limit: source 32Gi, target 1Gi', k.incompatibleEvent)!;
    assert.equal(inc.state, 'failed');
    assert.match(inc.verdict, /refused before CRIU \(RestoreIncompatible\): memory-limit differs \(captured with 32Gi, this target has 1Gi\); cpu-arch differs \(captured with amd64, this target has arm64\)/);
    assert.match(inc.verdict, /nvidia.com\/snapshot-skip-compat-check/);
    assert.match(at('RestoreReplenishmentIncompatible', 'False', 'cpu-arch: source amd64, target arm64')!.verdict, /a replacement container cannot be restored: cpu-arch differs/);
  });

  it('today\'s restore watches this cycle\'s pod, not one restored from the same snapshot earlier', () => {
    const old = { ...k.restoreFromPod('RestoreSucceeded', 'True'), metadata: { ...k.restoreFromPod('RestoreSucceeded', 'True').metadata, name: 'llama-restore-old', creationTimestamp: '2026-11-29T06:00:00Z' } };
    const fresh = { ...k.restoreFromPod('RestoreInProgress', 'False'), metadata: { ...k.restoreFromPod('RestoreInProgress', 'False').metadata, name: 'llama-restore-new', creationTimestamp: '2026-11-30T06:10:00Z' } };
    assert.equal(judgeKubeRestore(today({ pods: [parsePod(old), parsePod(fresh)] })), undefined, 'the newest restore-from pod is still restoring');
    assert.equal(judgeKubeRestore(today({ pods: [parsePod(old), parsePod(fresh)], restorePod: 'llama-restore-old' }))!.state, 'passed', 'the pod snapshotctl named wins');
  });

  it('capture: today\'s PodSnapshot Ready passes with every phase; Failed fails; yesterday\'s DynamoCheckpoint too', () => {
    const ok = judgeKubeCapture(today({ agentLog: k.agentLogToday }))!;
    assert.equal(ok.state, 'passed');
    assert.match(ok.verdict, /PodSnapshot llama-snap Ready, bound to PodSnapshotContent podsnapshotcontent-5e0c on node gpu-node-3 \(agent: 9.21 s: gpu_device_map 12 ms, cuda_checkpoint 3.1 s, criu_dump 5.2 s, overlay_capture 640 ms, remove_old_version_and_switch 8 ms, unaccounted 253 ms\)/);
    assert.deepEqual(ok.evidence.filter((e) => e.phase).map((e) => e.phase), ['gpu_device_map', 'cuda_checkpoint', 'criu_dump', 'overlay_capture', 'remove_old_version_and_switch', 'unaccounted']);
    assert.ok(ok.evidence.some((e) => /captured on node amd64, kernel 6.8.0-57/.test(e.text)));
    assert.equal(judgeKubeCapture(today({ snapshot: { ...parsePodSnapshot(k.podSnapshotReady), state: 'pending' }, content: undefined })), undefined);
    const bad = judgeKubeCapture(today({ snapshot: parsePodSnapshot({ ...k.podSnapshotFailed, metadata: { name: 'llama-snap' } }), content: undefined }))!;
    assert.equal(bad.state, 'failed');
    assert.match(bad.verdict, /PodSnapshot llama-snap failed \(CheckpointFailed: cuda-checkpoint-helper/);
    const legacy = judgeKubeCapture(obs({ checkpoint: parseCheckpoint(k.dynamoCheckpointReady), agentLog: k.agentLog }))!;
    assert.equal(legacy.state, 'passed');
    assert.match(legacy.verdict, /DynamoCheckpoint llama-8b-vllm ready at pvc.*\(agent: 9.21 s: /);
  });

  it('source exit: today a killed source after Ready is the expected end, before Ready a failure; yesterday 0 passes, 139 is SIGSEGV', () => {
    const killed = { metadata: { name: 'llama-job-source-x7' }, status: { phase: 'Failed', containerStatuses: [{ name: 'main', state: { terminated: { exitCode: 137, reason: 'Error' } } }] } };
    const v = judgeKubeSourceExit(today({ pods: [parsePod(killed)] }))!;
    assert.equal(v.state, 'passed');
    assert.match(v.verdict, /ended \(exit code 137 \(SIGKILL\), Error\) after PodSnapshot llama-snap became Ready: the agent's dump ends the source \(snapshot#101\), the expected end/);
    const early = judgeKubeSourceExit(today({ pods: [parsePod(killed)], snapshot: { ...parsePodSnapshot(k.podSnapshotReady), state: 'pending' }, content: undefined }))!;
    assert.equal(early.state, 'failed');
    assert.match(early.verdict, /before PodSnapshot llama-snap became Ready/);
    assert.match(judgeKubeSourceExit(today({ pods: [] }))!.verdict, /the source pod is gone after PodSnapshot llama-snap became Ready/);
    assert.equal(judgeKubeSourceExit(obs({ pods: [parsePod(k.sourcePodClean)] }))!.state, 'passed');
    const segv = judgeKubeSourceExit(obs({ pods: [parsePod(k.sourcePodSegv)] }))!;
    assert.equal(segv.state, 'failed');
    assert.match(segv.verdict, /139 \(SIGSEGV\)/);
  });
});

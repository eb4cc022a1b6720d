/**
 * The kubernetes observe-mode run on scripted cluster sequences (support/kubeScenario.ts), in both API
 * generations: today's (PodSnapshot Ready, the source killed by the dump, restore-from with every
 * Restored outcome, nested timing summaries) and yesterday's (DynamoCheckpoint, restore-status
 * annotations: a clean Auto-mode cycle, snapshotctl triggers, a SIGSEGV source exit, a failed
 * checkpoint, a failed restore), plus a restored pod without the resume line, a smoke URL that
 * nobody answers, a timeout, a cancel and an API error.
 */
import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { KubeRunSource } from '../../../src/core/workflow/kube/source';
import { runWorkflow } from '../../../src/core/workflow/runner';
import { WorkerSession } from '../../../src/core/workflow/session';
import type { StepName, StepRecord } from '../../../src/core/workflow/types';
import { startFakeOpenAi } from './support/fakeOpenAi';
import { KubeScenario, type ScenarioOptions } from './support/kubeScenario';
import { profile, ScriptedConnection } from './support/scripted';

type Fake = Awaited<ReturnType<typeof startFakeOpenAi>>;
let server: Fake;
before(async () => {
  server = await startFakeOpenAi();
});
after(() => server.close());

interface RunOpts {
  scenario?: ScenarioOptions;
  snapshotctl?: boolean;
  smokeUrl?: string;
  timeouts?: Record<string, number>;
  signal?: AbortSignal;
  steps?: StepName[];
  source?: (s: KubeScenario) => KubeRunSource;
  context?: string;
}

async function run(o: RunOpts = {}) {
  const sc = new KubeScenario(o.scenario);
  const legacy = sc.generation === 'dynamo';
  const p = profile({
    name: 'kube',
    transport: { kind: 'kubernetes', namespace: 'llm', selector: 'app=llama', container: 'main', ...(o.context ? { context: o.context } : {}) },
    kubernetes: legacy
      ? { checkpoint: 'llama-ckpt', agentNamespace: 'snapshot-system', agentSelector: 'app=snapshot-agent', pollSeconds: 0.02, ...(o.snapshotctl ? { snapshotctl: ['snapshotctl'], manifest: 'pod.yaml' } : {}) }
      : { snapshot: 'llama-snap', pollSeconds: 0.02, ...(o.snapshotctl ? { snapshotctl: ['snapshotctl'], manifest: 'pod.yaml' } : {}) },
    smoke: { url: o.smokeUrl ?? server.url, requests: 2 },
    timeouts: { connectSeconds: 5, readySeconds: 5, captureSeconds: 5, exitSeconds: 5, restoreSeconds: 5, requestSeconds: 5, ...o.timeouts },
  });
  const conn = new ScriptedConnection(p, { afterStart: [] });
  const session = new WorkerSession(p, conn);
  session.kube = o.source ? o.source(sc) : sc.kubeSource({ snapshotctl: o.snapshotctl });
  const result = await runWorkflow(session, { signal: o.signal, steps: o.steps, findExitCause: async () => [{ kind: 'diagnostic', text: 'SNAP001 raise SystemExit(0)', location: { file: 'snapshot.py', line: 41 } }] });
  await session.dispose();
  const step = (n: StepName): StepRecord => result.record.steps.find((x) => x.name === n)!;
  return { sc, conn, record: result.record, step };
}

const legacy = (scenario: ScenarioOptions = {}): ScenarioOptions => ({ generation: 'dynamo', ...scenario });

describe('kubernetes observe mode, today\'s Snapshot API', () => {
  it('a SnapshotJob cycle: PodSnapshot Ready, the source killed by the dump, restore-from Restored=True — every step passes', async () => {
    const { record, step } = await run();
    for (const s of record.steps) if (s.name !== 'start') assert.equal(s.state, 'passed', `${s.name}: ${s.state} — ${s.verdict}`);
    assert.match(step('connect').verdict!, /Snapshot API \(PodSnapshot, PodSnapshotContent, SnapshotJob, nvidia.com\/v1alpha1\)/);
    assert.match(step('preflight').verdict!, /PodSnapshot llama-snap \(Snapshot API/);
    assert.ok(step('preflight').evidence.some((e) => /snapshot agent: namespace snapshot-system \(discovered\), 1 pod \(selector app.kubernetes.io\/name=snapshot,app.kubernetes.io\/component=snapshot-agent, container agent\)/.test(e.text)));
    assert.match(step('capture').verdict!, /PodSnapshot llama-snap Ready, bound to PodSnapshotContent podsnapshotcontent-[0-9a-f-]{36} on node node-a \(agent: 1.21 s: gpu_device_map 12 ms, cuda_checkpoint 310 ms, criu_dump 520 ms, overlay_capture 64 ms, remove_old_version_and_switch 8 ms, unaccounted 299 ms\)/);
    assert.deepEqual(step('capture').evidence.filter((e) => e.phase).map((e) => `${e.phase}=${e.valueMs}`), ['gpu_device_map=12', 'cuda_checkpoint=310', 'criu_dump=520', 'overlay_capture=64', 'remove_old_version_and_switch=8', 'unaccounted=299']);
    assert.match(step('sourceExit').verdict!, /exit code 137 \(SIGKILL\).*the agent's dump ends the source \(snapshot#101\), the expected end/);
    assert.match(step('restore').verdict!, /restore of pod llama-restore-0 from PodSnapshot llama-snap succeeded \(nvidia.com\/Restored=True, RestoreSucceeded\) \(agent: 812 ms: gpu_device_map 10 ms, criu_prepare 120 ms, criu_restore 420 ms, cuda_restore 210 ms, unaccounted 52 ms\)/);
    assert.ok(step('restore').evidence.some((e) => /Normal RestoreRequested Pod\/llama-restore-0/.test(e.text)));
    assert.match(step('resume').verdict!, /llama-restore-0 resumed and Ready/);
    assert.equal(record.metrics.captureMs, 1213);
    assert.equal(record.metrics.phaseTimingsMs!['capture.criu_dump'], 520);
    assert.equal(record.metrics.phaseTimingsMs!['capture.started_to_complete'], 1500);
    assert.equal(record.metrics.phaseTimingsMs!['restore.criu_restore'], 420);
  });

  it('an Incompatible restore fails naming the differing fact; every other outcome ends in its verdict', async () => {
    const inc = await run({ scenario: { restoreOutcome: 'RestoreIncompatible' } });
    assert.equal(inc.record.outcome, 'failed');
    assert.equal(inc.step('restore').state, 'failed');
    assert.match(inc.step('restore').verdict!, /refused before CRIU \(RestoreIncompatible\): memory-limit differs \(captured with 4Gi, this target has 1Gi\)/);
    assert.equal(inc.step('resume').state, 'skipped');
    const partial = await run({ scenario: { restoreOutcome: 'RestorePartiallySucceeded' } });
    assert.match(partial.step('restore').verdict!, /only partly succeeded \(RestorePartiallySucceeded\): restored engine-0; engine-1: nsrestore/);
    const failed = await run({ scenario: { restoreOutcome: 'RestoreFailed' } });
    assert.match(failed.step('restore').verdict!, /failed \(RestoreFailed\): nsrestore: criu restore exited 1/);
    const repl = await run({ scenario: { restoreOutcome: 'RestoreReplenishmentIncompatible' } });
    assert.match(repl.step('restore').verdict!, /RestoreReplenishmentIncompatible\): a replacement container cannot be restored: memory-limit differs/);
  });

  it('a failed capture fails with the reason', async () => {
    const bad = await run({ scenario: { checkpointFails: true } });
    assert.equal(bad.step('capture').state, 'failed');
    assert.match(bad.step('capture').verdict!, /PodSnapshot llama-snap failed \(PodSnapshotFailed: .*\)|CheckpointFailed: cuda-checkpoint-helper/);
  });

  it('snapshotctl of today: --snapshot, --manifest, --namespace and --kube-context, each value in its flag\'s word', async () => {
    const { sc, record, step } = await run({ snapshotctl: true, scenario: { viaSnapshotctl: true }, context: 'prod' });
    assert.equal(record.outcome, 'passed', JSON.stringify(record.steps.map((s) => [s.name, s.state, s.verdict])));
    assert.deepEqual(sc.triggers, [
      ['checkpoint', '--manifest=pod.yaml', '--snapshot=llama-snap', '--container=main', '--namespace=llm', '--kube-context=prod'],
      ['restore', '--manifest=pod.yaml', '--snapshot=llama-snap', '--namespace=llm', '--kube-context=prod'],
    ]);
    assert.ok(step('preflight').evidence.some((e) => /snapshotctl: ai-dynamo\/snapshot snapshotctl \(--snapshot\)/.test(e.text)));
    assert.ok(step('capture').evidence.some((e) => /snapshotctl checkpoint .* exit 0 \(status=Ready, pod_snapshot=llama-snap\)/.test(e.text)));
  });
});

describe('kubernetes observe mode, yesterday\'s DynamoCheckpoint API', () => {
  it('a clean Auto-mode cycle: every step passes from what the cluster shows, with the agent timings', async () => {
    const { record, step, conn } = await run({ scenario: legacy() });
    for (const s of record.steps) if (s.name !== 'start') assert.equal(s.state, 'passed', `${s.name}: ${s.state} — ${s.verdict}`);
    assert.equal(step('start').state, 'skipped');
    assert.match(step('start').verdict!, /operator starts the checkpoint source/);
    assert.equal(conn.calls.length, 0, 'nothing ran through the agent connection');
    assert.match(step('connect').verdict!, /observing 2 pods in namespace llm through kubectl; Dynamo DynamoCheckpoint API/);
    assert.match(step('warmup').verdict!, /DP0, DP1.*from pod checkpoint-job/);
    assert.match(step('ready').verdict!, /container main Ready/);
    assert.match(step('capture').verdict!, /DynamoCheckpoint llama-ckpt ready at pvc:\/\/snapshots\/a1b2c3d4e5f60718 \(agent: 1.21 s: /);
    assert.ok(step('capture').evidence.some((e) => e.phase === 'criu_dump' && e.valueMs === 520));
    assert.match(step('sourceExit').verdict!, /exited with status 0/);
    assert.match(step('restore').verdict!, /restore of llama-restore-0\/main completed \(agent: 900 ms/);
    assert.ok(step('restore').evidence.some((e) => /RestoreSucceeded/.test(e.text)));
    assert.ok(step('restore').evidence.some((e) => /restore-status\.main=completed, condition Restored=True/.test(e.text)));
    assert.match(step('resume').verdict!, /llama-restore-0 resumed and Ready/);
    assert.ok(step('resume').evidence.some((e) => e.text === 'Resuming model after restore'));
    assert.match(step('smoke').verdict!, /2 of 2 requests answered/);
    assert.equal(record.metrics.captureMs, 1213);
    assert.equal(record.metrics.phaseTimingsMs!['restore.criu_restore'], 420);
    assert.ok(record.metrics.restoreMs! > 0);
    assert.match(step('report').evidence.map((e) => e.text).join('\n'), /nothing to stop/);
  });

  it('snapshotctl triggers the checkpoint and the restore (argv as the current snapshotctl takes it)', async () => {
    const { sc, record, step } = await run({ snapshotctl: true, scenario: legacy({ viaSnapshotctl: true }) });
    assert.equal(record.outcome, 'passed', JSON.stringify(record.steps.map((s) => [s.name, s.state, s.verdict])));
    assert.deepEqual(sc.triggers, [
      ['checkpoint', '--manifest=pod.yaml', '--container=main', '--namespace=llm'],
      ['restore', '--pod=llama-restore-0', '--containers=main', '--checkpoint-id=a1b2c3d4e5f60718', '--namespace=llm'],
    ]);
    assert.ok(step('capture').evidence.some((e) => /snapshotctl checkpoint .* exit 0 \(status=Ready, pod_snapshot=llama-snap\)/.test(e.text)));
  });

  it('a source container that ends with 139 fails sourceExit as SIGSEGV, with its log and the SNAP001 finding', async () => {
    const { record, step } = await run({ scenario: legacy({ exitCode: 139 }) });
    assert.equal(record.outcome, 'failed');
    assert.equal(step('sourceExit').state, 'failed');
    assert.match(step('sourceExit').verdict!, /exit code 139 \(SIGSEGV\)/);
    assert.ok(step('sourceExit').evidence.some((e) => e.text === 'Fatal Python error: Segmentation fault'));
    assert.ok(step('sourceExit').evidence.some((e) => e.kind === 'diagnostic' && e.location?.line === 41));
    assert.equal(step('restore').state, 'skipped');
  });

  it('a failed checkpoint fails capture with the reason', async () => {
    const { step } = await run({ scenario: legacy({ checkpointFails: true }) });
    assert.equal(step('capture').state, 'failed');
    assert.match(step('capture').verdict!, /CUDA_ERROR_NOT_SUPPORTED/);
  });

  it('a failed restore fails with the RestoreFailed event; a pod without the resume line warns', async () => {
    const bad = await run({ scenario: legacy({ restoreFails: true }) });
    assert.equal(bad.step('restore').state, 'failed');
    assert.match(bad.step('restore').verdict!, /failed: nsrestore: criu restore exited 1/);
    const quiet = await run({ scenario: legacy({ resumeLine: false }) });
    assert.equal(quiet.step('resume').state, 'warned');
    assert.match(quiet.step('resume').verdict!, /no "Resuming model after restore"/);
    assert.equal(quiet.record.outcome, 'passed');
  });

  it('smoke is skipped with the reason when the URL does not answer or needs a reported port', async () => {
    const srv = net.createServer();
    await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
    const free = (srv.address() as net.AddressInfo).port;
    await new Promise<void>((r) => srv.close(() => r()));
    const closed = await run({ smokeUrl: `http://127.0.0.1:${free}` });
    assert.equal(closed.step('smoke').state, 'skipped');
    assert.match(closed.step('smoke').verdict!, /not reachable from here \(ECONNREFUSED\)/);
    const port = await run({ smokeUrl: 'http://127.0.0.1:${port}', steps: ['smoke'] });
    assert.equal(port.step('smoke').state, 'skipped');
    assert.match(port.step('smoke').verdict!, /port-forward/);
  });

  it('a source that never gets Ready times out naming the setting; a cancel stops the watch', async () => {
    const slow = await run({ scenario: { neverReady: true }, timeouts: { readySeconds: 0.2 } });
    assert.equal(slow.step('warmup').state, 'failed');
    assert.match(slow.step('warmup').verdict!, /within 200 ms \(profile timeouts.readySeconds\)/);
    const ctl = new AbortController();
    setTimeout(() => ctl.abort(), 100);
    const t0 = Date.now();
    const cancelled = await run({ scenario: { neverReady: true }, signal: ctl.signal });
    assert.ok(Date.now() - t0 < 2000);
    assert.equal(cancelled.record.outcome, 'cancelled');
    assert.equal(cancelled.step('warmup').state, 'cancelled');
  });

  it('an API error fails connect with kubectl\'s message', async () => {
    const { step } = await run({ source: () => ({ pods: async () => Promise.reject(new Error('kubectl could not reach pod llm/app=llama: Unable to connect to the server')), events: async () => ({ items: [] }) }) });
    assert.equal(step('connect').state, 'failed');
    assert.match(step('connect').verdict!, /Unable to connect to the server/);
  });
});

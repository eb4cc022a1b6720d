/**
 * The kubernetes observe-mode run on recorded cluster sequences (support/kubeScenario.ts): a clean
 * Auto-mode cycle, snapshotctl triggers, a SIGSEGV source exit, a failed checkpoint, a failed restore,
 * a restored pod without the resume line, a smoke URL that nobody answers, a timeout and a cancel.
 */
import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { KubeRunSource } from '../../../src/core/workflow/kube/steps';
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
}

async function run(o: RunOpts = {}) {
  const sc = new KubeScenario(o.scenario);
  const p = profile({
    name: 'kube',
    transport: { kind: 'kubernetes', namespace: 'llm', selector: 'app=llama', container: 'main' },
    kubernetes: { checkpoint: 'llama-ckpt', agentNamespace: 'snapshot-system', agentSelector: 'app=snapshot-agent', pollSeconds: 0.02, ...(o.snapshotctl ? { snapshotctl: ['snapshotctl'], manifest: 'pod.yaml' } : {}) },
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

describe('kubernetes observe mode on recorded cluster sequences', () => {
  it('a clean Auto-mode cycle: every step passes from what the cluster shows, with the agent timings', async () => {
    const { record, step, conn } = await run();
    for (const s of record.steps) if (s.name !== 'start') assert.equal(s.state, 'passed', `${s.name}: ${s.state} — ${s.verdict}`);
    assert.equal(step('start').state, 'skipped');
    assert.match(step('start').verdict!, /operator starts the checkpoint source/);
    assert.equal(conn.calls.length, 0, 'nothing ran through the agent connection');
    assert.match(step('connect').verdict!, /observing 2 pods in namespace llm/);
    assert.match(step('warmup').verdict!, /DP0, DP1.*from pod checkpoint-job/);
    assert.match(step('ready').verdict!, /container main Ready/);
    assert.match(step('capture').verdict!, /checkpoint llama-ckpt ready at pvc:\/\/snapshots\/a1b2c3d4e5f60718 \(agent: 1213 ms\)/);
    assert.ok(step('capture').evidence.some((e) => e.text === 'checkpoint criu_dump' && e.valueMs === 520));
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
    const { sc, record, step } = await run({ snapshotctl: true, scenario: { viaSnapshotctl: true } });
    assert.equal(record.outcome, 'passed', JSON.stringify(record.steps.map((s) => [s.name, s.state, s.verdict])));
    assert.deepEqual(sc.triggers, [
      ['checkpoint', '--manifest', 'pod.yaml', '--container', 'main', '--namespace', 'llm'],
      ['restore', '--pod', 'llama-restore-0', '--containers', 'main', '--namespace', 'llm', '--checkpoint-id', 'a1b2c3d4e5f60718'],
    ]);
    assert.ok(step('capture').evidence.some((e) => /snapshotctl checkpoint .* exit 0 \(status=Submitted\)/.test(e.text)));
  });

  it('a source container that ends with 139 fails sourceExit as SIGSEGV, with its log and the SNAP001 finding', async () => {
    const { record, step } = await run({ scenario: { exitCode: 139 } });
    assert.equal(record.outcome, 'failed');
    assert.equal(step('sourceExit').state, 'failed');
    assert.match(step('sourceExit').verdict!, /exit code 139 \(SIGSEGV\)/);
    assert.ok(step('sourceExit').evidence.some((e) => e.text === 'Fatal Python error: Segmentation fault'));
    assert.ok(step('sourceExit').evidence.some((e) => e.kind === 'diagnostic' && e.location?.line === 41));
    assert.equal(step('restore').state, 'skipped');
  });

  it('a failed checkpoint fails capture with the reason', async () => {
    const { step } = await run({ scenario: { checkpointFails: true } });
    assert.equal(step('capture').state, 'failed');
    assert.match(step('capture').verdict!, /CUDA_ERROR_NOT_SUPPORTED/);
  });

  it('a failed restore fails with the RestoreFailed event; a pod without the resume line warns', async () => {
    const bad = await run({ scenario: { restoreFails: true } });
    assert.equal(bad.step('restore').state, 'failed');
    assert.match(bad.step('restore').verdict!, /failed: nsrestore: criu restore exited 1/);
    const quiet = await run({ scenario: { resumeLine: false } });
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

/**
 * Kubernetes observe mode end to end on a real kube-apiserver (test/system/support/kubeCluster.ts)
 * with the real kubectl: `node dist/cli.js run` against a scripted snapshot cycle
 * (test/unit/workflow/support/kubeScenario.ts) whose objects the API server validates against the
 * snapshot API's CRDs (support/snapshotCrds.ts). Today's API: PodSnapshot Ready, the source killed by
 * the dump, a restore-from pod with Restored=Succeeded, nested timing summaries; an Incompatible
 * restore; snapshotctl triggers. Yesterday's API (DynamoCheckpoint, restore-status annotations): the
 * clean cycle and a SIGSEGV source exit. Each run gets its own namespace; the scenario moves on by
 * itself, and every judged state is sticky, so no step depends on when the CLI happens to look.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { execa } from 'execa';
import { RunRecordSchema, type RunRecord } from '../../../src/core/workflow/records';
import { renderReport } from '../../../src/core/workflow/report';
import { runCli } from '../support/cli';
import { installCrds, kubeClusterParts, startKubeCluster, type KubeCluster } from '../support/kubeCluster';
import { ScenarioOnCluster } from '../support/scenarioOnCluster';
import { DYNAMO_CHECKPOINT_CRD, SNAPSHOT_API_CRDS } from '../support/snapshotCrds';
import { skipOrFail } from '../support/sshd';
import { startFakeOpenAi } from '../../unit/workflow/support/fakeOpenAi';
import { KubeScenario, SNAPSHOTCTL_HELP, SNAPSHOTCTL_HELP_CHECKPOINT_ID, type ScenarioOptions } from '../../unit/workflow/support/kubeScenario';

let why: string | undefined;
let openai: Awaited<ReturnType<typeof startFakeOpenAi>> | undefined;
const clusters: KubeCluster[] = [];
let nsCount = 0;

before(async () => {
  const v = await execa('kubectl', ['version', '--client', '-o', 'json'], { reject: false });
  const parts = kubeClusterParts();
  if (v.exitCode !== 0) why = 'kubectl not found (install kubectl >= 1.30)';
  else if ('missing' in parts) why = parts.missing;
  else openai = await startFakeOpenAi();
});
after(async () => {
  await openai?.close();
  for (const c of clusters) await c.stop();
});

async function cluster(crds: readonly Record<string, unknown>[]): Promise<KubeCluster> {
  const c = await startKubeCluster(fs.mkdtempSync(path.join(os.tmpdir(), 'dsw-kapi-')));
  clusters.push(c);
  await installCrds(c, crds);
  return c;
}

/** A fake snapshotctl of the given generation: records its argv, answers as the real one prints. */
function fakeSnapshotctl(ws: string, help: string): { file: string; calls: () => string[][] } {
  const calls = path.join(ws, 'snapshotctl.calls');
  const file = path.join(ws, 'snapshotctl');
  const helpFile = path.join(ws, 'snapshotctl.help');
  fs.writeFileSync(helpFile, help);
  fs.writeFileSync(
    file,
    [
      '#!/bin/sh',
      `[ "$1" = "--help" ] && { cat '${helpFile}' >&2; exit 0; }`,
      `printf '%s\\n' "$*" >> '${calls}'`,
      'case "$1" in checkpoint) echo status=Ready; echo pod_snapshot=llama-snap ;; restore) echo status=Submitted; echo restore_pod=llama-restore-0 ;; esac',
      '',
    ].join('\n'),
    { mode: 0o755 },
  );
  return { file, calls: () => (fs.existsSync(calls) ? fs.readFileSync(calls, 'utf8').split('\n').filter(Boolean).map((l) => l.split(' ')) : []) };
}

interface Run {
  scenario: ScenarioOptions;
  snapshotctl?: boolean;
  steps?: string;
  kubernetes?: Record<string, unknown>;
}

/** Plays `o.scenario` on `c` in a fresh namespace and runs the CLI on a kubernetes observe-mode profile. */
async function runOn(c: KubeCluster, o: Run) {
  const ws = fs.mkdtempSync(path.join(os.tmpdir(), 'dsw-kube-wf-'));
  const ns = `llm-${++nsCount}`;
  const sc = new KubeScenario({ readyMs: 600, stepMs: 400, namespace: ns, ...o.scenario });
  const ctl = o.snapshotctl ? fakeSnapshotctl(ws, sc.generation === 'snapshot' ? SNAPSHOTCTL_HELP : SNAPSHOTCTL_HELP_CHECKPOINT_ID) : undefined;
  if (ctl) sc.readTriggers = ctl.calls;
  const play = new ScenarioOnCluster(c, sc);
  await play.setup();
  play.start();
  const config = path.join(ws, 'settings.json');
  const legacy = sc.generation === 'dynamo';
  fs.writeFileSync(config, JSON.stringify({
    'dynamoSnapshot.kubectl.kubeconfig': c.kubeconfig,
    'dynamoSnapshot.workers': [{
      name: 'kube-llama',
      transport: { kind: 'kubernetes', context: 'dsw-test', namespace: ns, selector: 'app=llama', container: 'main' },
      dataParallelSize: 2,
      kubernetes: {
        ...(legacy ? { checkpoint: 'llama-ckpt', agentNamespace: 'snapshot-system', agentSelector: 'app=snapshot-agent' } : { snapshot: 'llama-snap' }),
        pollSeconds: 0.2,
        ...(ctl ? { snapshotctl: [ctl.file], manifest: 'pod.yaml' } : {}),
        ...o.kubernetes,
      },
      smoke: { url: openai!.url, requests: 2 },
      timeouts: { connectSeconds: 30, readySeconds: 60, captureSeconds: 60, exitSeconds: 60, restoreSeconds: 60, requestSeconds: 10 },
    }],
  }));
  try {
    const r = await runCli(['run', '--worker', 'kube-llama', '--config', config, '--format', 'json', ...(o.steps ? ['--steps', o.steps] : [])], ws, 150_000);
    const parsed = RunRecordSchema.safeParse(JSON.parse(r.stdout || 'null'));
    assert.ok(parsed.success, `not a run record; stderr:\n${r.stderr.slice(-3000)}`);
    assert.deepEqual(play.refused, [], 'the API server accepted every scripted write');
    return { r, rec: parsed.data, sc, calls: ctl?.calls(), step: (n: string) => parsed.data.steps.find((s) => s.name === n)! };
  } finally {
    await play.stop();
    fs.rmSync(ws, { recursive: true, force: true });
  }
}

function states(rec: RunRecord): string {
  return rec.steps.map((s) => `${s.name}: ${s.state} — ${s.verdict}`).join('\n');
}

describe("today's Snapshot API on a real kube-apiserver", () => {
  let c: KubeCluster | undefined;
  before(async () => {
    if (!why) c = await cluster(SNAPSHOT_API_CRDS);
  });

  test('PodSnapshot Ready, the source killed by the dump, restore-from Restored=True: every step passes, phases in the report', { timeout: 180_000 }, async (t) => {
    if (why) return skipOrFail(t, why);
    const { r, rec, step } = await runOn(c!, { scenario: {} });
    assert.equal(r.code, 0, `${states(rec)}\n${r.stderr.slice(-2000)}`);
    assert.equal(step('start').state, 'skipped');
    for (const n of ['connect', 'preflight', 'warmup', 'ready', 'capture', 'sourceExit', 'restore', 'resume', 'smoke', 'report']) assert.equal(step(n).state, 'passed', states(rec));
    assert.match(step('connect').verdict!, /Snapshot API \(PodSnapshot, PodSnapshotContent, SnapshotJob, nvidia.com\/v1alpha1\)/);
    // The agent's namespace was discovered from the chart's labels (no agentNamespace in the profile).
    assert.ok(step('preflight').evidence.some((e) => /snapshot agent: namespace snapshot-system \(discovered\), 1 pod/.test(e.text)), states(rec));
    assert.match(step('capture').verdict!, /PodSnapshot llama-snap Ready, bound to PodSnapshotContent podsnapshotcontent-[0-9a-f-]{36} on node node-a \(agent: 1.21 s: gpu_device_map 12 ms, cuda_checkpoint 310 ms, criu_dump 520 ms, overlay_capture 64 ms, remove_old_version_and_switch 8 ms, unaccounted 299 ms\)/);
    assert.match(step('sourceExit').verdict!, /exit code 137 \(SIGKILL\), Error\) after PodSnapshot llama-snap became Ready: the agent's dump ends the source \(snapshot#101\), the expected end/);
    assert.match(step('restore').verdict!, /restore of pod llama-restore-0 from PodSnapshot llama-snap succeeded \(nvidia.com\/Restored=True, RestoreSucceeded\) \(agent: 812 ms: /);
    assert.ok(step('restore').evidence.some((e) => /Normal RestoreRequested Pod\/llama-restore-0: Restore requested/.test(e.text)), 'the real Event, read through kubectl');
    assert.match(step('resume').verdict!, /llama-restore-0 resumed and Ready/);
    assert.equal(rec.metrics.phaseTimingsMs!['capture.criu_dump'], 520);
    assert.equal(rec.metrics.phaseTimingsMs!['restore.criu_restore'], 420);
    // Every phase is in the Markdown report too.
    const md = renderReport(rec);
    for (const p of ['gpu_device_map', 'cuda_checkpoint', 'criu_dump', 'overlay_capture', 'remove_old_version_and_switch', 'criu_prepare', 'criu_restore', 'cuda_restore']) assert.match(md, new RegExp(`agent (checkpoint|restore) phase ${p}: `), p);
  });

  test('an Incompatible restore fails naming the differing fact (exit status 1)', { timeout: 180_000 }, async (t) => {
    if (why) return skipOrFail(t, why);
    const { r, rec, step } = await runOn(c!, { scenario: { restoreOutcome: 'RestoreIncompatible' } });
    assert.equal(r.code, 1, states(rec));
    assert.equal(step('capture').state, 'passed', states(rec));
    assert.equal(step('restore').state, 'failed');
    assert.match(step('restore').verdict!, /refused before CRIU \(RestoreIncompatible\): memory-limit differs \(captured with 4Gi, this target has 1Gi\)/);
    assert.equal(step('resume').state, 'skipped');
  });

  test('snapshotctl of today gets --manifest, --snapshot, --namespace and --kube-context, one word each', { timeout: 180_000 }, async (t) => {
    if (why) return skipOrFail(t, why);
    const { r, rec, calls } = await runOn(c!, { scenario: { viaSnapshotctl: true }, snapshotctl: true });
    assert.equal(r.code, 0, states(rec));
    const ns = rec.steps.find((s) => s.name === 'connect')!.verdict!.match(/namespace (llm-\d+)/)![1];
    assert.deepEqual(calls, [
      ['checkpoint', '--manifest=pod.yaml', '--snapshot=llama-snap', '--container=main', `--namespace=${ns}`, '--kube-context=dsw-test'],
      ['restore', '--manifest=pod.yaml', '--snapshot=llama-snap', `--namespace=${ns}`, '--kube-context=dsw-test'],
    ]);
  });
});

describe("yesterday's DynamoCheckpoint API on a real kube-apiserver", () => {
  let c: KubeCluster | undefined;
  before(async () => {
    if (!why) c = await cluster([DYNAMO_CHECKPOINT_CRD]);
  });

  test('snapshotctl triggers, every step judged from the DynamoCheckpoint, the annotations and the events', { timeout: 180_000 }, async (t) => {
    if (why) return skipOrFail(t, why);
    const { r, rec, step, calls } = await runOn(c!, { scenario: { generation: 'dynamo', viaSnapshotctl: true }, snapshotctl: true });
    assert.equal(r.code, 0, `${states(rec)}\n${r.stderr.slice(-2000)}`);
    for (const n of ['connect', 'preflight', 'warmup', 'ready', 'capture', 'sourceExit', 'restore', 'resume', 'smoke', 'report']) assert.equal(step(n).state, 'passed', states(rec));
    assert.match(step('connect').verdict!, /Dynamo DynamoCheckpoint API/);
    const ns = step('connect').verdict!.match(/namespace (llm-\d+)/)![1];
    assert.deepEqual(calls, [
      ['checkpoint', '--manifest=pod.yaml', '--container=main', `--namespace=${ns}`, '--kube-context=dsw-test'],
      ['restore', '--pod=llama-restore-0', '--containers=main', '--checkpoint-id=a1b2c3d4e5f60718', `--namespace=${ns}`, '--kube-context=dsw-test'],
    ]);
    assert.match(step('capture').verdict!, /DynamoCheckpoint llama-ckpt ready at pvc:\/\/snapshots\/a1b2c3d4e5f60718 \(agent: 1.21 s: /);
    assert.ok(step('capture').evidence.some((e) => /=== Starting checkpoint operation ===/.test(e.text)));
    assert.match(step('warmup').verdict!, /DP0, DP1/);
    assert.match(step('sourceExit').verdict!, /status 0/);
    assert.ok(step('restore').evidence.some((e) => /restore-status\.main=completed, condition Restored=True \(RestoreSucceeded\)/.test(e.text)));
    assert.equal(rec.metrics.phaseTimingsMs!['restore.started_to_complete'], 900);
    assert.match(step('smoke').verdict!, /2 of 2 requests answered/);
    assert.match(r.stderr, /Capture: /);
  });

  test('a source container ending with 139 fails sourceExit (exit status 1)', { timeout: 180_000 }, async (t) => {
    if (why) return skipOrFail(t, why);
    const { r, rec, step } = await runOn(c!, { scenario: { generation: 'dynamo', exitCode: 139 }, steps: 'sourceExit' });
    assert.equal(r.code, 1, states(rec));
    assert.equal(step('sourceExit').state, 'failed');
    assert.match(step('sourceExit').verdict!, /exit code 139 \(SIGSEGV\)/);
    assert.ok(step('sourceExit').evidence.some((e) => e.text === 'Fatal Python error: Segmentation fault'), 'the source pod log tail, read with kubectl logs');
    assert.equal(step('restore').state, 'skipped');
  });
});

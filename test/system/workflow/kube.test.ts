/**
 * A kubernetes observe-mode run end to end: `node dist/cli.js run` with the real kubectl against the
 * fake API server (test/system/support/fakeKubeApi.ts), which serves a scripted Dynamo snapshot cycle
 * (test/unit/workflow/support/kubeScenario.ts): pods with restore-status annotations, the Restored
 * condition and container exits, snapshot events, a DynamoCheckpoint (nvidia.com/v1alpha1) and the
 * snapshot agent's logs; a fake snapshotctl records what it was asked. What this cannot check (a real
 * operator, agent, CRDs' real schemas, RBAC): docs/workflow.md.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { execa } from 'execa';
import { RunRecordSchema, type RunRecord } from '../../../src/core/workflow/records';
import { runCli } from '../support/cli';
import { startFakeOpenAi } from '../../unit/workflow/support/fakeOpenAi';
import { KubeScenario, type ScenarioOptions } from '../../unit/workflow/support/kubeScenario';
import { startFakeKubeApi } from '../support/fakeKubeApi';
import { skipOrFail } from '../support/sshd';

let why: string | undefined;
let openai: Awaited<ReturnType<typeof startFakeOpenAi>> | undefined;

before(async () => {
  const v = await execa('kubectl', ['version', '--client', '-o', 'json'], { reject: false });
  if (v.exitCode !== 0) why = 'kubectl not found (install kubectl >= 1.30)';
  else openai = await startFakeOpenAi();
});
after(async () => openai?.close());

const cli = (args: string[], cwd: string, timeoutMs = 90_000) => runCli(args, cwd, timeoutMs);

/** Serves `scenario` through the fake API and runs the CLI on a kubernetes observe-mode profile. */
async function runAgainstFakeCluster(o: ScenarioOptions, steps?: string) {
  const ws = fs.mkdtempSync(path.join(os.tmpdir(), 'dsw-kube-wf-'));
  const sc = new KubeScenario({ readyMs: 600, stepMs: 400, ...o });
  const triggers = path.join(ws, 'snapshotctl.calls');
  sc.readTriggers = () => (fs.existsSync(triggers) ? fs.readFileSync(triggers, 'utf8').split('\n').filter(Boolean).map((l) => l.split(' ')) : []);
  const snapshotctl = path.join(ws, 'snapshotctl');
  fs.writeFileSync(snapshotctl, `#!/bin/sh\n[ "$1" = "--help" ] && { echo "usage: snapshotctl"; exit 0; }\necho "$@" >> '${triggers}'\necho status=Submitted\n`, { mode: 0o755 });
  const api = await startFakeKubeApi([sc.source, sc.target, sc.agent], ws, { events: sc.events, checkpoints: sc.checkpoints });
  const ticker = setInterval(() => sc.tick(), 20);
  const config = path.join(ws, 'settings.json');
  fs.writeFileSync(config, JSON.stringify({
    'dynamoSnapshot.kubectl.kubeconfig': api.kubeconfig,
    'dynamoSnapshot.workers': [{
      name: 'kube-llama',
      transport: { kind: 'kubernetes', namespace: 'llm', selector: 'app=llama', container: 'main' },
      command: ['(started by the operator)'],
      dataParallelSize: 2,
      kubernetes: { checkpoint: 'llama-ckpt', agentNamespace: 'snapshot-system', agentSelector: 'app=snapshot-agent', pollSeconds: 0.2, ...(o.viaSnapshotctl ? { snapshotctl: [snapshotctl], manifest: 'pod.yaml' } : {}) },
      smoke: { url: openai!.url, requests: 2 },
      timeouts: { connectSeconds: 20, readySeconds: 30, captureSeconds: 30, exitSeconds: 30, restoreSeconds: 30, requestSeconds: 10 },
    }],
  }));
  try {
    const r = await cli(['run', '--worker', 'kube-llama', '--config', config, '--format', 'json', ...(steps ? ['--steps', steps] : [])], ws);
    const parsed = RunRecordSchema.safeParse(JSON.parse(r.stdout || 'null'));
    assert.ok(parsed.success, `not a run record; stderr:\n${r.stderr.slice(-3000)}`);
    return { r, rec: parsed.data, sc, api, step: (n: string) => parsed.data.steps.find((s) => s.name === n)! };
  } finally {
    clearInterval(ticker);
    await api.stop();
  }
}

function states(rec: RunRecord): string {
  return rec.steps.map((s) => `${s.name}: ${s.state} — ${s.verdict}`).join('\n');
}

test('kubernetes observe mode through the real kubectl: snapshotctl triggers, every step judged from the cluster', { timeout: 120_000 }, async (t) => {
  if (why) return skipOrFail(t, why);
  const { r, rec, sc, step } = await runAgainstFakeCluster({ viaSnapshotctl: true });
  assert.equal(r.code, 0, `${states(rec)}\n${r.stderr.slice(-2000)}`);
  assert.equal(step('start').state, 'skipped');
  for (const n of ['connect', 'preflight', 'warmup', 'ready', 'capture', 'sourceExit', 'restore', 'resume', 'smoke', 'report']) assert.equal(step(n).state, 'passed', states(rec));
  assert.deepEqual(sc.readTriggers!(), [
    ['checkpoint', '--manifest', 'pod.yaml', '--container', 'main', '--namespace', 'llm'],
    ['restore', '--pod', 'llama-restore-0', '--containers', 'main', '--namespace', 'llm', '--checkpoint-id', 'a1b2c3d4e5f60718'],
  ]);
  // Seen through kubectl: the DynamoCheckpoint of the nvidia.com group, the agent's logs (other
  // namespace, by selector), the restore-status annotation and events, the pods' own logs.
  assert.match(step('capture').verdict!, /checkpoint llama-ckpt ready at pvc:\/\/snapshots\/a1b2c3d4e5f60718 \(agent: 1213 ms\)/);
  assert.ok(step('capture').evidence.some((e) => /=== Starting checkpoint operation ===/.test(e.text)));
  assert.match(step('warmup').verdict!, /DP0, DP1/);
  assert.match(step('sourceExit').verdict!, /status 0/);
  assert.ok(step('restore').evidence.some((e) => /restore-status\.main=completed, condition Restored=True \(RestoreSucceeded\)/.test(e.text)));
  assert.ok(step('restore').evidence.some((e) => /RestoreSucceeded Pod\/llama-restore-0/.test(e.text)));
  assert.equal(rec.metrics.phaseTimingsMs!['restore.started_to_complete'], 900);
  assert.match(step('resume').verdict!, /llama-restore-0 resumed and Ready/);
  assert.match(step('smoke').verdict!, /2 of 2 requests answered/);
  assert.match(r.stderr, /Capture: /);
  if (process.env.DSW_DEBUG) console.log(r.stderr);
});

test('kubernetes observe mode: a source container ending with 139 fails sourceExit (exit status 1)', { timeout: 120_000 }, async (t) => {
  if (why) return skipOrFail(t, why);
  const { r, rec, step } = await runAgainstFakeCluster({ exitCode: 139 }, 'sourceExit');
  assert.equal(r.code, 1, states(rec));
  assert.equal(step('sourceExit').state, 'failed');
  assert.match(step('sourceExit').verdict!, /exit code 139 \(SIGSEGV\)/);
  assert.ok(step('sourceExit').evidence.some((e) => e.text === 'Fatal Python error: Segmentation fault'), 'the source pod log tail, read with kubectl logs');
  assert.equal(step('restore').state, 'skipped');
});

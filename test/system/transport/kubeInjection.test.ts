/**
 * Issue 13 item 4, replayed with the real kubectl: a profile value that starts with "-" must never
 * reach kubectl as an option. The attack: `transport.pod: "--kubeconfig=<evil>"` made `kubectl get
 * pod <pod> -o json` load that kubeconfig, whose exec credential plugin then ran as the user. Every
 * name kubectl or snapshotctl gets is now a validated Kubernetes name (the profile schema names
 * profile and field), the transport checks again, values ride in their flag's word, and positional
 * names sit behind `--` where kubectl allows it.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { execa } from 'execa';
import { kubeSourceFor } from '../../../src/cli/kubeSource';
import { formatProblem, parseWorkerProfiles, WorkerProfile } from '../../../src/core/settings/workerProfile';
import { KubernetesTransport } from '../../../src/transport/kubernetes';
import { scratch, testEnv } from '../../unit/transport/helpers';
import { runCli } from '../support/cli';
import { startFakeKubeApi, type FakeKubeApi } from '../support/fakeKubeApi';
import { kubeClusterParts, startKubeCluster, type KubeCluster } from '../support/kubeCluster';
import { kubeconfigText } from '../support/kubeconfig';
import { skipOrFail } from '../support/sshd';

let why: string | undefined;
let api: FakeKubeApi | undefined;
let cluster: KubeCluster | undefined;
const dir = scratch('kube-inject');
const marker = path.join(dir, 'pwned');
const evil = path.join(dir, 'evil-kubeconfig');
const ATTACK = `--kubeconfig=${evil}`;

before(async () => {
  const v = await execa('kubectl', ['version', '--client', '-o', 'json'], { reject: false });
  if (v.exitCode !== 0) {
    why = 'kubectl not found (install kubectl >= 1.30)';
    return;
  }
  const parts = kubeClusterParts();
  if ('missing' in parts) {
    why = parts.missing;
    return;
  }
  api = await startFakeKubeApi([{ name: 'worker-0', namespace: 'llm', labels: { app: 'llama' } }], dir);
  // client-go runs exec credential plugins only for TLS servers, so the evil kubeconfig points at a real API server.
  cluster = await startKubeCluster(path.join(dir, 'cluster'));
  const ca = fs.readFileSync(cluster.kubeconfig, 'utf8').match(/certificate-authority-data: (\S+)/)![1];
  // A kubeconfig whose user runs an exec credential plugin: loading it runs the attacker's program.
  const plugin = path.join(dir, 'plugin.sh');
  fs.writeFileSync(plugin, `#!/bin/sh\ntouch '${marker}'\necho '{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"token":"x"}}'\n`, { mode: 0o755 });
  fs.writeFileSync(evil, kubeconfigText({ name: 'e', server: cluster.url, caData: ca, user: { exec: plugin } }));
});
after(async () => {
  await api?.stop();
  await cluster?.stop();
});

const env = () => testEnv(scratch('kube-inject-env'), { kubeconfig: api!.kubeconfig });

test('the attack is real: kubectl given the old argv runs the evil kubeconfig\'s exec plugin', async (t) => {
  if (why) return skipOrFail(t, why);
  fs.rmSync(marker, { force: true });
  // Exactly what the transport built before the fix: `get pod <transport.pod> -o json`.
  await execa('kubectl', [`--kubeconfig=${api!.kubeconfig}`, '--namespace', 'llm', 'get', 'pod', ATTACK, '-o', 'json'], { reject: false });
  assert.ok(fs.existsSync(marker), 'kubectl loaded the kubeconfig named in the pod field and ran its plugin');
  fs.rmSync(marker, { force: true });
});

test('every name field of a kubernetes profile refuses an option, naming profile and field', () => {
  const fields: [string, Record<string, unknown>][] = [
    ['transport.pod', { transport: { kind: 'kubernetes', pod: ATTACK } }],
    ['transport.namespace', { transport: { kind: 'kubernetes', pod: 'w', namespace: ATTACK } }],
    ['transport.context', { transport: { kind: 'kubernetes', pod: 'w', context: ATTACK } }],
    ['transport.container', { transport: { kind: 'kubernetes', pod: 'w', container: ATTACK } }],
    ['transport.selector', { transport: { kind: 'kubernetes', selector: ATTACK } }],
    ['kubernetes.checkpoint', { transport: { kind: 'kubernetes', pod: 'w' }, kubernetes: { checkpoint: ATTACK } }],
    ['kubernetes.snapshot', { transport: { kind: 'kubernetes', pod: 'w' }, kubernetes: { snapshot: ATTACK } }],
    ['kubernetes.agentNamespace', { transport: { kind: 'kubernetes', pod: 'w' }, kubernetes: { agentNamespace: ATTACK } }],
    ['kubernetes.agentSelector', { transport: { kind: 'kubernetes', pod: 'w' }, kubernetes: { agentSelector: ATTACK } }],
    ['kubernetes.agentContainer', { transport: { kind: 'kubernetes', pod: 'w' }, kubernetes: { agentContainer: ATTACK } }],
    ['kubernetes.restorePod', { transport: { kind: 'kubernetes', pod: 'w' }, kubernetes: { restorePod: ATTACK } }],
    ['kubernetes.checkpointId', { transport: { kind: 'kubernetes', pod: 'w' }, kubernetes: { checkpointId: ATTACK } }],
  ];
  for (const [field, over] of fields) {
    const { profiles, problems } = parseWorkerProfiles([{ name: 'evil', command: ['x'], ...over }]);
    assert.equal(profiles.length, 0, field);
    const text = problems.map((p) => formatProblem(p)).join('\n');
    assert.match(text, new RegExp(`worker profile "evil": ${field.replace('.', '\\.')}: "--kubeconfig=.*" is not a`), field);
  }
  // Real names still pass, context names keep their kubeconfig freedom (ARNs, user@cluster).
  assert.ok(WorkerProfile.safeParse({ name: 'ok', command: ['x'], transport: { kind: 'kubernetes', pod: 'vllm-0.worker', namespace: 'llm', context: 'arn:aws:eks:us-east-1:1:cluster/gpu', container: 'main' }, kubernetes: { snapshot: 'llama-snap' } }).success);
  assert.ok(WorkerProfile.safeParse({ name: 'ok2', command: ['x'], transport: { kind: 'kubernetes', selector: 'app=llama,tier in (gpu)' } }).success);
});

test('the CLI refuses the profile before kubectl runs: exit 2, the field named, no plugin run', async (t) => {
  if (why) return skipOrFail(t, why);
  fs.rmSync(marker, { force: true });
  const config = path.join(dir, 'settings.json');
  fs.writeFileSync(config, JSON.stringify({
    'dynamoSnapshot.kubectl.kubeconfig': api!.kubeconfig,
    'dynamoSnapshot.workers': [{ name: 'evil', transport: { kind: 'kubernetes', namespace: 'llm', pod: ATTACK }, kubernetes: { checkpoint: ATTACK } }],
  }));
  const r = await runCli(['run', '--worker', 'evil', '--config', config], dir, 60_000);
  assert.equal(r.code, 2, r.stderr);
  assert.match(r.stderr, /worker profile "evil": transport\.pod: "--kubeconfig=.*" is not a Kubernetes pod name/);
  assert.match(r.stderr, /worker profile "evil": kubernetes\.checkpoint: "--kubeconfig=.*" is not a Kubernetes object name/);
  assert.ok(!fs.existsSync(marker), 'no kubeconfig plugin ran');
});

test('a spec that skipped the schema is refused by the transport itself; names reach kubectl behind --', async (t) => {
  if (why) return skipOrFail(t, why);
  fs.rmSync(marker, { force: true });
  assert.throws(() => new KubernetesTransport({ kind: 'kubernetes', pod: ATTACK }, env()), /transport\.pod: "--kubeconfig=.*" is not a Kubernetes pod name/);
  assert.throws(() => new KubernetesTransport({ kind: 'kubernetes', pod: 'w', namespace: ATTACK }, env()), /transport\.namespace/);
  const tr = new KubernetesTransport({ kind: 'kubernetes', namespace: 'llm', selector: 'app=llama' }, env());
  const obs = tr.observer();
  await assert.rejects(obs.object('podsnapshot', ATTACK), /podsnapshot: "--kubeconfig=.*" is not a Kubernetes object name/);
  await assert.rejects(tr.podLog(ATTACK, undefined), /pod: "--kubeconfig=.*" is not a Kubernetes pod name/);
  assert.ok(!fs.existsSync(marker), 'no kubeconfig plugin ran');
  // What kubectl is given: every value in its flag's word, names after `--` (exec: before its `--`).
  const recorder = path.join(dir, 'kubectl-recorder');
  const argvLog = path.join(dir, 'argv.log');
  fs.writeFileSync(recorder, `#!/bin/sh\nprintf '%s\\n' "$*" >> '${argvLog}'\nexec kubectl "$@"\n`, { mode: 0o755 });
  const rec = new KubernetesTransport({ kind: 'kubernetes', namespace: 'llm', pod: 'worker-0', container: 'main' }, testEnv(scratch('kube-inject-rec'), { kubeconfig: api!.kubeconfig, kubectlPath: recorder }));
  await rec.connect();
  await rec.observer().object('dynamocheckpoint', 'llama-ckpt');
  await rec.podLog('worker-0', 'main').catch(() => undefined);
  const calls = fs.readFileSync(argvLog, 'utf8').trim().split('\n');
  assert.match(calls[0]!, /^--kubeconfig=\S+ --namespace=llm --request-timeout=\d+s get pod -o json -- worker-0$/);
  assert.match(calls[1]!, / get dynamocheckpoints\.nvidia\.com -o json -- llama-ckpt$/);
  assert.match(calls[2]!, / logs --tail=500 --container=main -- worker-0$/);
  assert.deepEqual(rec.execArgs(['python3', '-V']).slice(-7), ['exec', '-i', '--container=main', 'worker-0', '--', 'python3', '-V']);
  // The observe-mode source built from a profile goes the same way.
  const p = WorkerProfile.parse({ name: 'k', transport: { kind: 'kubernetes', namespace: 'llm', pod: 'worker-0' }, kubernetes: { snapshot: 'llama-snap' } });
  assert.ok(kubeSourceFor(p, env()));
});

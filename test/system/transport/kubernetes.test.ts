/**
 * The kubernetes transport with the real kubectl against the fake API server: pod selection by
 * name and label, argv passed verbatim through `kubectl exec`, exit codes, and the agent's whole
 * protocol-mode lifecycle of the stand-in engine through exec. (What this cannot check: docs/transport.md.)
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { execa } from 'execa';
import { WorkerProfile } from '../../../src/core/settings/workerProfile';
import { createConnection, TransportError } from '../../../src/transport';
import { KubernetesTransport } from '../../../src/transport/kubernetes';
import { STANDIN, collect, removeRunDir, scratch, stopAllStarted, testEnv, track, waitUntil } from '../../unit/transport/helpers';
import { startFakeKubeApi, type FakeKubeApi } from '../support/fakeKubeApi';
import { skipOrFail } from '../support/sshd';
import { rng, randomArgv } from './fuzzArgs';

let api: FakeKubeApi | undefined;
let why: string | undefined;
const dir = scratch('kube');

before(async () => {
  const v = await execa('kubectl', ['version', '--client', '-o', 'json'], { reject: false });
  if (v.exitCode !== 0) {
    why = 'kubectl not found (install kubectl >= 1.30)';
    return;
  }
  api = await startFakeKubeApi(
    [
      { name: 'worker-0', namespace: 'llm', labels: { app: 'dynamo', role: 'worker' }, containers: ['main', 'sidecar'] },
      { name: 'pending-0', namespace: 'llm', labels: { app: 'dynamo', role: 'pending' }, phase: 'Pending' },
    ],
    dir,
  );
});
after(stopAllStarted);
after(async () => api?.stop());

const env = () => testEnv(scratch('kube-env'), { kubeconfig: api!.kubeconfig });

test('pod by label selector, container checked, argv verbatim through kubectl exec', async (t) => {
  if (why) return skipOrFail(t, why);
  const tr = new KubernetesTransport({ kind: 'kubernetes', namespace: 'llm', selector: 'app=dynamo,role=worker', container: 'main' }, env());
  await tr.connect();
  assert.equal(tr.label, 'pod llm/worker-0');
  const r = rng(99);
  for (let i = 0; i < 20; i++) {
    const argv = randomArgv(r).map((a) => a || 'x');
    const res = await tr.run(['python3', '-c', 'import sys,json;sys.stdout.write(json.dumps(sys.argv[1:]))', ...argv]);
    assert.equal(res.code, 0, res.stderr);
    assert.deepEqual(JSON.parse(res.stdout), argv);
  }
  const fail = await tr.run(['sh', '-c', 'exit 3']);
  assert.equal(fail.code, 3);
  assert.equal(api!.execs.at(-1)!.container, 'main');
});

test('a pod that is not running, and a missing container, are clear errors', async (t) => {
  if (why) return skipOrFail(t, why);
  await assert.rejects(new KubernetesTransport({ kind: 'kubernetes', namespace: 'llm', selector: 'role=pending' }, env()).connect(), /no running pod matches role=pending\. Check the profile's namespace/);
  await assert.rejects(new KubernetesTransport({ kind: 'kubernetes', namespace: 'llm', pod: 'worker-0', container: 'nope' }, env()).connect(), /has no container nope.*main, sidecar/);
  await assert.rejects(new KubernetesTransport({ kind: 'kubernetes', namespace: 'llm', pod: 'ghost' }, env()).connect(), (e: unknown) => e instanceof TransportError && /pod llm\/ghost was not found/.test(e.message));
});

test('stand-in engine lifecycle through kubectl exec (protocol mode)', async (t) => {
  if (why) return skipOrFail(t, why);
  const profile = WorkerProfile.parse({ name: 'k', transport: { kind: 'kubernetes', namespace: 'llm', pod: 'worker-0' }, command: ['python3', STANDIN(), '--dp', '2'] });
  const conn = createConnection(profile, env());
  const hello = await conn.hello(AbortSignal.timeout(30_000));
  assert.equal(hello.type, 'hello');
  const h = track(conn, await conn.startSource(`kube-${process.pid}`, AbortSignal.timeout(30_000)));
  const f = collect(conn, h);
  await f.waitFor((e) => e.type === 'sentinel' && e.name === 'ready-for-snapshot' && e.action === 'created');
  const cap = await conn.capture(h, AbortSignal.timeout(30_000));
  assert.equal(cap.ok, true, cap.error);
  await f.waitFor((e) => e.type === 'process_exit' && e.code === 0);
  await waitUntil(() => f.logText().includes('Snapshot completion sentinel detected'), 5000, 'capture line');
  await f.stop();
  await conn.stop(h, 1000);
  removeRunDir(h.runDir);
});

test('observer: pods, events and a follow of the pod log through kubectl logs -f', async (t) => {
  if (why) return skipOrFail(t, why);
  const tr = new KubernetesTransport({ kind: 'kubernetes', namespace: 'llm', selector: 'app=dynamo' }, env());
  await tr.connect();
  const obs = tr.observer();
  const pods = (await obs.pods()) as { metadata: { name: string } }[];
  assert.deepEqual(pods.map((p) => p.metadata.name).sort(), ['pending-0', 'worker-0']);
  const ev = (await obs.events()) as { items: { reason: string }[] };
  assert.equal(ev.items[0]!.reason, 'RestoreSucceeded');
  assert.equal(await obs.object('dynamocheckpoint', 'nope'), undefined, 'a missing DynamoCheckpoint (or CRD) is undefined, not an error');
  const p = tr.logs({ follow: true });
  p.stdin.end();
  let out = '';
  for await (const c of p.stdout as AsyncIterable<Buffer>) out += c.toString();
  assert.equal((await p.exited).code, 0);
  const lines = out.trim().split('\n');
  assert.equal(lines.length, 5);
  assert.match(lines[4]!, /\(EngineCore_DP0 pid=7\) line 4$/);
});

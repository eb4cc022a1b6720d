/**
 * A real CPU checkpoint and restore of the stand-in engine with CRIU 4.2.1 through the agent:
 * dump --leave-running, snapshot-complete, the source exits, criu restore in a supervisor, the
 * restored engine resumes in its polling loop and answers requests again.
 */
import assert from 'node:assert/strict';
import test, { after } from 'node:test';
import { WorkerProfile } from '../../../src/core/settings/workerProfile';
import { createConnection } from '../../../src/transport';
import { STANDIN, collect, pidAlive, removeRunDir, repoRoot, scratch, stopAllStarted, testEnv, track, waitUntil } from '../../unit/transport/helpers';
import { findCriu } from '../support/criu';
import { skipOrFail, sshdUnavailable, startSshd } from '../support/sshd';

after(stopAllStarted);

test('criu capture and restore of the stand-in engine; the restored engine serves', async (t) => {
  const criu = await findCriu(repoRoot());
  if (!criu.path) return skipOrFail(t, criu.why!);
  await captureAndRestore(t, criu.path, { kind: 'local' }, testEnv(scratch('criu')));
});

test('the same over ssh as root (real sshd on 127.0.0.1)', async (t) => {
  const criu = await findCriu(repoRoot());
  if (!criu.path) return skipOrFail(t, criu.why!);
  const why = sshdUnavailable();
  if (why) return skipOrFail(t, why);
  const sshd = await startSshd();
  try {
    await captureAndRestore(t, criu.path, { kind: 'ssh', host: sshd.hosts.root! }, testEnv(scratch('criu-ssh'), { sshConfigFile: sshd.configFile }));
  } finally {
    await sshd.stop();
  }
});

async function captureAndRestore(
  t: { diagnostic(s: string): void },
  criuPath: string,
  transport: { kind: 'local' } | { kind: 'ssh'; host: string },
  env: ReturnType<typeof testEnv>,
): Promise<void> {
  const profile = WorkerProfile.parse({
    name: 'criu-test',
    transport,
    python: '/usr/bin/python3',
    command: ['/usr/bin/python3', STANDIN(), '--dp', '2', '--memory-mb', '32'],
    captureMode: 'criu',
    criu: { path: criuPath },
    restoreContextEnv: { DYN_NAMESPACE: 'restored-ns' },
    timeouts: { readySeconds: 60, captureSeconds: 120, restoreSeconds: 120, exitSeconds: 30 },
  });
  const conn = createConnection(profile, env);
  const signal = AbortSignal.timeout(180_000);
  const h = track(conn, await conn.startSource(`criu-${transport.kind}-${process.pid}`, signal));
  const f = collect(conn, h);
  try {
    await f.waitFor((e) => e.type === 'sentinel' && e.name === 'ready-for-snapshot' && e.action === 'created', 30_000);
    const cap = await conn.capture(h, signal);
    assert.equal(cap.ok, true, cap.error);
    assert.ok((cap.imageBytes ?? 0) > 32 * 1024 * 1024, `image of ${cap.imageBytes} bytes`);
    t.diagnostic(`${transport.kind}: criu dump ${cap.timingsMs.criu_dump} ms, image ${((cap.imageBytes ?? 0) / 1048576).toFixed(1)} MiB`);
    const exit = await f.waitFor((e) => e.type === 'process_exit' && e.role === 'source');
    assert.ok(exit.type === 'process_exit' && exit.code === 0, JSON.stringify(exit));
    const r = await conn.restore(h, signal);
    assert.equal(r.ok, true, r.error);
    assert.equal(r.pid, h.pid, 'CRIU restores the original pid');
    t.diagnostic(`${transport.kind}: criu restore ${r.timingsMs.criu_restore} ms`);
    const ep = await f.waitFor((e) => e.type === 'endpoint', 30_000);
    assert.ok(ep.type === 'endpoint');
    await waitUntil(() => f.logText().includes('Applied snapshot restore context runtime env'), 10_000, 'restore lines');
    for (let i = 0; i < 3; i++) {
      const res = await fetch(`${ep.url}/v1/completions`, { method: 'POST', body: JSON.stringify({ prompt: `hello ${i % 2}`, max_tokens: 3 }) });
      assert.equal(res.status, 200);
      const body = (await res.json()) as { usage: { completion_tokens: number; prompt_tokens_details: { cached_tokens: number } } };
      assert.equal(body.usage.completion_tokens, 3);
      assert.equal(body.usage.prompt_tokens_details.cached_tokens, i === 2 ? 2 : 0);
    }
    await conn.stop(h, 2000);
    await f.waitFor((e) => e.type === 'process_exit' && e.role === 'restored');
    assert.equal(pidAlive(h.pid), false);
  } finally {
    await conn.stop(h, 1000).catch(() => undefined);
    await f.stop();
    await conn.dispose();
    removeRunDir(h.runDir);
  }
}

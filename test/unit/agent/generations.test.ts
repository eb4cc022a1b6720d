/**
 * The worker-side agent as the upstream snapshot agent runs capture and restore (docs/compatibility.md):
 * CRIU options and the dedicated plugin dir, the two protocol generations (release: --leave-running +
 * snapshot-complete; kill: the dump ends the source, restore-complete "pid=<N>", restore-failed), and the
 * restore context (written before the restore, 0600, sorted, allow-listed with null for unset, removed
 * once the restored worker has read it).
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import test, { after } from 'node:test';
import { RESTORE_CONTEXT_NAMES } from '../../../src/core/settings/restoreContext';
import { parseWorkerProfiles, WorkerProfile } from '../../../src/core/settings/workerProfile';
import { createConnection } from '../../../src/transport';
import { STANDIN, collect, pidAlive, scratch, stopAllStarted, testEnv, track, waitUntil } from '../transport/helpers';

const signal = () => AbortSignal.timeout(60_000);

/**
 * A stand-in `criu`: records its argv (one JSON line per call) and, for a restore, what the control
 * directory held at that moment; `restore` starts a sleeper as "the restored process" and writes its pid.
 */
function fakeCriu(dir: string, control: () => string): { criu: string; calls: () => { argv: string[]; context?: { mode: string; text: string } | null }[] } {
  const criu = path.join(dir, 'criu');
  const log = path.join(dir, 'criu-calls.jsonl');
  fs.writeFileSync(
    criu,
    `#!/usr/bin/env python3
import json, os, subprocess, sys
a = sys.argv[1:]
rec = {"argv": a}
if a[0] == "dump":
    img = a[a.index("-D") + 1]
    open(os.path.join(img, "inventory.img"), "w").write("x")
if a[0] == "restore":
    ctx = os.path.join(open(${JSON.stringify(path.join(dir, 'control-path'))}).read(), "restore-context.json")
    rec["context"] = {"mode": oct(os.stat(ctx).st_mode & 0o777), "text": open(ctx).read()} if os.path.exists(ctx) else None
    p = subprocess.Popen(["sleep", "30"], start_new_session=True)
    open(a[a.index("--pidfile") + 1], "w").write(str(p.pid))
open(${JSON.stringify(log)}, "a").write(json.dumps(rec) + "\\n")
`,
    { mode: 0o755 },
  );
  return {
    criu,
    calls: () => {
      fs.writeFileSync(path.join(dir, 'control-path'), control());
      return fs.existsSync(log) ? fs.readFileSync(log, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { argv: string[]; context?: { mode: string; text: string } | null }) : [];
    },
  };
}

const UPSTREAM_DUMP = ['--shell-job', '--tcp-established', '--file-locks', '--ext-unix-sk', '--link-remap', '--enable-external-masters', '--ghost-limit', '536870912', '--manage-cgroups=soft', '--allow-uprobes', '--skip-in-flight'];
const UPSTREAM_RESTORE = ['--shell-job', '--tcp-established', '--file-locks', '--ext-unix-sk', '--link-remap', '--manage-cgroups=soft', '--allow-uprobes', '--skip-in-flight', '--restore-sibling', '--evasive-devices', '--force-irmap', '--network-lock', 'skip'];

for (const generation of ['release', 'kill'] as const) {
  test(`criu mode, ${generation} generation: the upstream agent's CRIU options, an empty plugin dir, the context before the restore`, async () => {
    const dir = scratch(`gen-${generation}`);
    let controlDir = '';
    const { criu, calls } = fakeCriu(dir, () => controlDir);
    const profile = WorkerProfile.parse({
      name: `gen-${generation}`,
      command: ['python3', STANDIN(), '--dp', '1', '--no-color', '--load-seconds', '0', '--warmup-seconds', '0'],
      env: { NATS_SERVER: 'nats://capture-time:4222', DSW_SECRET_TOKEN: 'not-restored' },
      captureMode: 'criu',
      snapshotProtocol: generation,
      criu: { path: criu },
      restoreContextEnv: { DYN_NAMESPACE: 'restored-ns', NATS_SERVER: null },
    });
    const conn = createConnection(profile, testEnv(dir));
    const h = track(conn, await conn.startSource(`gen-${generation}`, signal()));
    controlDir = h.controlDir;
    fs.writeFileSync(path.join(dir, 'control-path'), controlDir);
    const cap = await conn.capture(h, signal());
    assert.equal(cap.ok, true, cap.error);
    assert.equal(cap.generation, generation);
    assert.equal(cap.sourceKilled, generation === 'kill');
    const dump = calls().find((c) => c.argv[0] === 'dump')!;
    for (const o of UPSTREAM_DUMP) assert.ok(dump.argv.includes(o), `dump lacks ${o}: ${dump.argv.join(' ')}`);
    assert.equal(dump.argv.includes('--leave-running'), generation === 'release', dump.argv.join(' '));
    const plugins = dump.argv[dump.argv.indexOf('-L') + 1]!;
    assert.ok(plugins.startsWith(h.runDir), plugins);
    assert.deepEqual(fs.readdirSync(plugins), [], 'the dedicated plugin dir is empty');
    assert.equal(fs.existsSync(path.join(h.controlDir, 'snapshot-complete')), generation === 'release');
    // The fake dump does not end the source (a real one does in the kill generation): end it here.
    await conn.stop(h, 1000);

    const r = await conn.restore(h, signal());
    assert.equal(r.ok, true, r.error);
    assert.equal(r.generation, generation);
    const restore = calls().find((c) => c.argv[0] === 'restore')!;
    for (const o of UPSTREAM_RESTORE) assert.ok(restore.argv.includes(o), `restore lacks ${o}: ${restore.argv.join(' ')}`);
    assert.ok(restore.context, 'restore-context.json existed before criu restore ran');
    assert.equal(restore.context.mode, '0o600');
    const ctx = JSON.parse(restore.context.text) as { env: Record<string, string | null> };
    assert.deepEqual(Object.keys(ctx.env), [...RESTORE_CONTEXT_NAMES].sort(), 'every allow-listed name, sorted');
    assert.equal(ctx.env.DYN_NAMESPACE, 'restored-ns');
    assert.equal(ctx.env.NATS_SERVER, null, 'null unsets the capture-time value');
    assert.equal(ctx.env.POD_NAME, null);
    assert.ok(!restore.context.text.includes('not-restored'), 'names outside the list never reach the file');
    assert.equal(restore.context.text, JSON.stringify({ env: Object.fromEntries(Object.keys(ctx.env).sort().map((k) => [k, ctx.env[k]])) }) + '\n', 'sorted, compact, one line');
    const complete = fs.readFileSync(path.join(h.controlDir, 'restore-complete'), 'utf8');
    assert.equal(complete, generation === 'kill' ? `pid=${r.pid}\n` : 'done\n');
    // The sleeper never reads the context: it goes when the restored process does.
    process.kill(r.pid!, 'SIGKILL');
    await waitUntil(() => !fs.existsSync(path.join(h.controlDir, 'restore-context.json')), 10_000, 'restore-context.json removed after the restored process ended');
    await conn.stop(h, 1000);
    await conn.dispose();
  });
}

test('protocol restore: the restored stand-in reads the context, and the file is gone right after', async () => {
  const dir = scratch('ctx-read');
  const profile = WorkerProfile.parse({
    name: 'ctx-read',
    command: ['python3', STANDIN(), '--dp', '1', '--no-color', '--load-seconds', '0', '--warmup-seconds', '0'],
    restoreContextEnv: { DYN_NAMESPACE: 'restored-ns' },
  });
  const conn = createConnection(profile, testEnv(dir));
  const h = track(conn, await conn.startSource('ctx-read', signal()));
  const f = collect(conn, h);
  assert.equal((await conn.capture(h, signal())).ok, true);
  await f.waitFor((e) => e.type === 'process_exit' && e.role === 'source');
  const r = await conn.restore(h, signal());
  assert.equal(r.ok, true, r.error);
  await waitUntil(() => f.logText().includes('Applied snapshot restore context runtime env'), 10_000, 'the restored worker applied the context');
  await waitUntil(() => !fs.existsSync(path.join(h.controlDir, 'restore-context.json')), 10_000, 'restore-context.json removed after use');
  assert.ok(pidAlive(r.pid!), 'removing the file leaves the restored worker running');
  await conn.stop(h, 1000);
  await f.stop();
  await conn.dispose();
});

test('kill generation: a restore that fails leaves restore-failed, kills the destination and removes the context', async () => {
  const dir = scratch('restore-failed');
  // First start: the stand-in; the restore target (second start) never becomes ready.
  const script = path.join(dir, 'engine.sh');
  fs.writeFileSync(script, `#!/bin/sh\nif [ -e ${JSON.stringify(path.join(dir, 'started'))} ]; then exec sleep 60; fi\ntouch ${JSON.stringify(path.join(dir, 'started'))}\nexec python3 ${JSON.stringify(STANDIN())} --dp 1 --no-color --load-seconds 0 --warmup-seconds 0\n`, { mode: 0o755 });
  const profile = WorkerProfile.parse({ name: 'restore-failed', command: [script], snapshotProtocol: 'kill', timeouts: { readySeconds: 2 } });
  const conn = createConnection(profile, testEnv(dir));
  const h = track(conn, await conn.startSource('restore-failed', signal()));
  const f = collect(conn, h);
  const cap = await conn.capture(h, signal());
  assert.equal(cap.ok, true, cap.error);
  const exit = await f.waitFor((e) => e.type === 'process_exit' && e.role === 'source');
  assert.equal(exit.type === 'process_exit' && exit.signal, 'SIGKILL', 'the capture ended the source');
  const r = await conn.restore(h, signal());
  assert.equal(r.ok, false);
  assert.match(r.error!, /never became ready/);
  assert.match(fs.readFileSync(path.join(h.controlDir, 'restore-failed'), 'utf8'), /never became ready/);
  await f.waitFor((e) => e.type === 'process_exit' && e.role === 'restored');
  assert.equal(fs.existsSync(path.join(h.controlDir, 'restore-context.json')), false);
  await conn.stop(h, 1000);
  await f.stop();
  await conn.dispose();
});

test('a profile naming a restore env Dynamo does not restore is refused with the setting and the list', () => {
  const { problems } = parseWorkerProfiles([{ name: 'p', command: ['x'], restoreContextEnv: { HF_TOKEN: 'secret', DYN_NAMESPACE: 'ok' } }]);
  assert.equal(problems.length, 1);
  assert.equal(problems[0]!.field, 'restoreContextEnv');
  assert.match(problems[0]!.message, /HF_TOKEN is not restored by Dynamo .*DYN_NAMESPACE/);
});

test('CRIU option overrides reach the command line; an unknown one is refused', async () => {
  const dir = scratch('criu-opts');
  let controlDir = '';
  const { criu, calls } = fakeCriu(dir, () => controlDir);
  const plugins = path.join(dir, 'my-plugins');
  fs.mkdirSync(plugins);
  const profile = WorkerProfile.parse({
    name: 'criu-opts',
    command: ['python3', STANDIN(), '--dp', '1', '--no-color', '--load-seconds', '0', '--warmup-seconds', '0'],
    captureMode: 'criu',
    criu: { path: criu, options: { tcpEstablished: false, ghostLimit: 1024, manageCgroupsMode: 'ignore', pluginDir: plugins } },
  });
  const conn = createConnection(profile, testEnv(dir));
  const h = track(conn, await conn.startSource('criu-opts', signal()));
  controlDir = h.controlDir;
  assert.equal((await conn.capture(h, signal())).ok, true);
  const dump = calls().find((c) => c.argv[0] === 'dump')!.argv;
  assert.ok(!dump.includes('--tcp-established'), dump.join(' '));
  assert.equal(dump[dump.indexOf('--ghost-limit') + 1], '1024');
  assert.ok(dump.includes('--manage-cgroups=ignore'));
  assert.equal(dump[dump.indexOf('-L') + 1], plugins);
  await conn.stop(h, 1000);
  await conn.dispose();
  assert.throws(() => WorkerProfile.parse({ name: 'x', command: ['x'], criu: { options: { leaveRunning: true } } }), /leaveRunning/);
});

/** A cuda-checkpoint whose unlock fails; `thenRunning`: the process is running anyway (what the agent must tolerate). */
function failingUnlockCuda(dir: string, thenRunning: boolean): string {
  const fake = path.join(dir, 'cuda-checkpoint');
  fs.writeFileSync(
    fake,
    `#!/usr/bin/env python3
import sys, os
a = sys.argv[1:]
pid = a[a.index("--pid") + 1]
st = os.path.join(${JSON.stringify(dir)}, "state-" + pid)
state = open(st).read() if os.path.exists(st) else "running"
if a[0] == "--get-restore-tid": print(pid)
elif a[0] == "--get-state": print(state)
elif a[1] == "unlock":
    open(st, "w").write(${JSON.stringify(thenRunning ? 'running' : 'locked')})
    sys.exit("cuCheckpointProcessUnlock: CUDA_ERROR_ILLEGAL_STATE")
else:
    open(st, "w").write({"lock": "locked", "checkpoint": "checkpointed", "restore": "locked"}[a[1]])
`,
    { mode: 0o755 },
  );
  return fake;
}

for (const thenRunning of [true, false]) {
  test(`criu restore: an unlock error is ${thenRunning ? 'success when the process already runs' : 'a failure when it does not'}`, async () => {
    const dir = scratch(`unlock-${thenRunning}`);
    let controlDir = '';
    const { criu } = fakeCriu(dir, () => controlDir);
    const profile = WorkerProfile.parse({
      name: `unlock-${thenRunning}`,
      command: ['python3', STANDIN(), '--dp', '1', '--no-color', '--load-seconds', '0', '--warmup-seconds', '0'],
      captureMode: 'criu',
      criu: { path: criu, cudaCheckpointPath: failingUnlockCuda(dir, thenRunning) },
    });
    const conn = createConnection(profile, testEnv(dir));
    const h = track(conn, await conn.startSource(`unlock-${thenRunning}`, signal()));
    controlDir = h.controlDir;
    fs.writeFileSync(path.join(dir, 'control-path'), controlDir);
    const cap = await conn.capture(h, signal());
    assert.equal(cap.ok, true, cap.error);
    await conn.stop(h, 1000);
    const r = await conn.restore(h, signal());
    assert.equal(r.ok, thenRunning, r.error);
    if (!thenRunning) assert.match(r.error!, /CUDA_ERROR_ILLEGAL_STATE/);
    if (r.pid) process.kill(r.pid, 'SIGKILL');
    await conn.stop(h, 1000);
    await conn.dispose();
  });
}

after(stopAllStarted);

/**
 * The agent protocol under a hostile or broken worker: garbage, oversized, unknown and
 * wrong-version lines are reported and skipped; a worker that never becomes ready times out; a
 * failed capture unlocks the source and reports; an unwritable control dir is a clear error.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import test, { after } from 'node:test';
import type { AgentEvent } from '../../../src/core/protocol/agentEvents';
import { WorkerProfile } from '../../../src/core/settings/workerProfile';
import type { ProtocolProblem } from '../../../src/core/worker/types';
import { AgentCommandError, AgentConnection, createConnection } from '../../../src/transport';
import { agentInvocation } from '../../../src/transport/agentLoader';
import { startAgent } from '../../../src/transport/agentSession';
import { LocalTransport } from '../../../src/transport/local';
import { STANDIN, pidAlive, scratch, stopAllStarted, testEnv, track } from '../transport/helpers';

const signal = () => AbortSignal.timeout(60_000);

test('garbage, oversized, unknown and wrong-version lines are reported and skipped', async () => {
  // A "worker" that speaks badly, sent through the real loader exactly like the agent is.
  const hostile = Buffer.from(
    [
      'import sys',
      'w = sys.stdout.write',
      'w("not json at all\\n")',
      'w("[1, 2, 3]\\n")',
      'w("\\n")',
      'w(\'{"v": 2, "t": 1, "type": "done", "ok": true}\\n\')',
      'w(\'{"v": 1, "t": 1, "type": "teleport"}\\n\')',
      'w(\'{"v": 1, "t": 1, "type": "log", "file": "x"}\\n\')',
      'w("x" * (9 * 1024 * 1024) + "\\n")',
      'w(\'{"v": 1, "t": 1, "type": "warning", "message": "still here \\\\u00e9"}\\n\')',
      'sys.stderr.write("a traceback line\\n")',
      'w(\'{"v": 1, "t": 1, "type": "done", "ok": true}\')',
    ].join('\n'),
  );
  const problems: ProtocolProblem[] = [];
  const s = startAgent(new LocalTransport(), 'python3', hostile, 'hello', {}, (p) => problems.push(p));
  const events: AgentEvent[] = [];
  for await (const e of s.events()) events.push(e);
  assert.deepEqual(events.map((e) => e.type), ['warning', 'done']);
  assert.equal(events[0]!.type === 'warning' && events[0]!.message, 'still here é');
  assert.deepEqual(problems.map((p) => p.kind).sort(), ['invalid', 'not-json', 'not-json', 'oversized', 'stderr', 'unknown-type', 'version']);
});

test('a stderr line that arrives in pieces is reported once, whole; an unfinished last line too', async () => {
  const script = Buffer.from(
    [
      'import sys, time',
      'e = sys.stderr',
      'e.write("Traceback part one, "); e.flush(); time.sleep(0.3)',
      'e.write("part two\\nsecond line\\n"); e.flush(); time.sleep(0.3)',
      'e.write("last words without a newline"); e.flush()',
      'sys.stdout.write(\'{"v": 1, "t": 1, "type": "done", "ok": true}\\n\')',
    ].join('\n'),
  );
  const problems: ProtocolProblem[] = [];
  const s = startAgent(new LocalTransport(), 'python3', script, 'hello', {}, (p) => problems.push(p));
  for await (const _e of s.events()) void _e;
  await s.exited;
  assert.deepEqual(
    problems.map((p) => [p.kind, p.detail]),
    [
      ['stderr', 'Traceback part one, part two'],
      ['stderr', 'second line'],
      ['stderr', 'last words without a newline'],
    ],
  );
});

test('commands asked for together connect the transport once (no second ssh ControlMaster)', async () => {
  let connects = 0;
  class CountingTransport extends LocalTransport {
    override async connect(): Promise<void> {
      connects++;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  const profile = WorkerProfile.parse({ name: 'twice', command: ['true'] });
  const conn = new AgentConnection(profile, testEnv(scratch('twice')), new CountingTransport());
  const [a, b] = await Promise.all([conn.hello(signal()), conn.hello(signal())]);
  assert.equal(a.type, 'hello');
  assert.equal(b.type, 'hello');
  assert.equal(connects, 1);
  await conn.dispose();
  // dispose closed the shared connection: the next command sets it up again.
  await conn.hello(signal());
  assert.equal(connects, 2);
});

test('an agent script cut short on stdin makes the loader fail loudly instead of hanging', async () => {
  const script = Buffer.from('print(1)\n');
  const { argv } = agentInvocation('python3', script, 'hello', {});
  argv[3] = String(script.length + 100); // claim more than will arrive
  const p = new LocalTransport().spawn(argv);
  let err = '';
  p.stderr.on('data', (d: Buffer) => (err += d.toString()));
  p.stdout.resume();
  p.stdin.end(script);
  const st = await p.exited;
  assert.equal(st.code, 1);
  assert.match(err, /agent script truncated on stdin/);
});

test('python missing on the worker names the python setting', async () => {
  const profile = WorkerProfile.parse({ name: 'np', command: ['true'], python: 'python3-does-not-exist' });
  const conn = createConnection(profile, testEnv(scratch('nopy')));
  await assert.rejects(conn.hello(signal()), /Python "python3-does-not-exist" was not found on local.*"python"/s);
});

test('a worker that never becomes ready: capture times out and reports it', async () => {
  const profile = WorkerProfile.parse({ name: 'never', command: ['sleep', '30'], timeouts: { readySeconds: 0.5 } });
  const conn = createConnection(profile, testEnv(scratch('never')));
  const h = track(conn, await conn.startSource('never', signal()));
  const t0 = Date.now();
  const cap = await conn.capture(h, signal());
  assert.equal(cap.ok, false);
  assert.match(cap.error!, /never became ready: no .*ready-for-snapshot after 0.5s/);
  assert.ok(Date.now() - t0 < 10_000);
  assert.equal(fs.existsSync(path.join(h.controlDir, 'snapshot-complete')), false);
  assert.ok(pidAlive(h.pid));
  await conn.stop(h, 500);
  assert.equal(pidAlive(h.pid), false);
});

test('a source that dies before it is ready fails the capture at once', async () => {
  const profile = WorkerProfile.parse({ name: 'dies', command: ['sh', '-c', 'sleep 0.3; exit 3'] });
  const conn = createConnection(profile, testEnv(scratch('dies')));
  const h = track(conn, await conn.startSource('dies', signal()));
  const cap = await conn.capture(h, signal());
  assert.equal(cap.ok, false);
  assert.match(cap.error!, /ended before it wrote ready-for-snapshot/);
});

/**
 * cuda-checkpoint stand-in for a CPU box: keeps each pid's state in a file and logs every call, so a
 * test can check the agent's transitions (lock, checkpoint, then restore + unlock).
 */
function fakeCudaCheckpoint(dir: string): { fake: string; calls: string } {
  const fake = path.join(dir, 'cuda-checkpoint');
  const calls = path.join(dir, 'calls.log');
  fs.writeFileSync(
    fake,
    `#!/usr/bin/env python3
import sys, os
a = sys.argv[1:]
pid = a[a.index("--pid") + 1]
st = os.path.join(${JSON.stringify(dir)}, "state-" + pid)
state = open(st).read() if os.path.exists(st) else "running"
open(${JSON.stringify(calls)}, "a").write(" ".join(a[:2]) + "\\n")
if a[0] == "--get-restore-tid": print(pid)
elif a[0] == "--get-state": print(state)
else:
    nxt = {"lock": "locked", "checkpoint": "checkpointed", "restore": "locked", "unlock": "running"}[a[1]]
    open(st, "w").write(nxt)
`,
    { mode: 0o755 },
  );
  return { fake, calls };
}

test('a cancelled criu capture kills criu dump, brings every locked pid back to running and reports', async () => {
  const dir = scratch('capcancel');
  const { fake, calls } = fakeCudaCheckpoint(dir);
  // A criu that hangs in "dump" (records its pid): only cancelling can end it.
  const criu = path.join(dir, 'criu');
  const criuPid = path.join(dir, 'criu.pid');
  fs.writeFileSync(criu, `#!/bin/sh\necho $$ > ${JSON.stringify(criuPid)}\nexec sleep 120\n`, { mode: 0o755 });
  const profile = WorkerProfile.parse({
    name: 'capcancel',
    command: ['python3', STANDIN(), '--dp', '2', '--no-color'],
    captureMode: 'criu',
    criu: { path: criu, cudaCheckpointPath: fake },
  });
  const conn = createConnection(profile, testEnv(dir));
  const h = track(conn, await conn.startSource('capcancel', signal()));
  const ac = new AbortController();
  const phases: string[] = [];
  const cap = await conn.capture(h, ac.signal, (e) => {
    if (e.type !== 'phase') return;
    phases.push(`${e.phase}:${e.state}`);
    // Cancel once criu runs (its pid file is written a moment after the phase starts).
    if (e.phase === 'criu_dump' && e.state === 'start') {
      const t = setInterval(() => fs.existsSync(criuPid) && (clearInterval(t), ac.abort()), 10);
    }
  });
  assert.equal(cap.ok, false);
  assert.match(cap.error!, /cancelled/);
  assert.ok(phases.includes('criu_dump:failed'), phases.join(' '));
  assert.equal(phases.filter((p) => p === 'cuda_release:end').length, 3, phases.join(' ')); // engine + 2 ranks
  assert.equal(pidAlive(Number(fs.readFileSync(criuPid, 'utf8'))), false, 'criu dump was killed');
  const log = fs.readFileSync(calls, 'utf8');
  for (const step of ['--action restore', '--action unlock']) assert.ok(log.includes(step), log);
  const states = fs.readdirSync(dir).filter((n) => n.startsWith('state-'));
  assert.equal(states.length, 3);
  for (const f of states) assert.equal(fs.readFileSync(path.join(dir, f), 'utf8'), 'running', f);
  assert.equal(fs.existsSync(path.join(h.controlDir, 'snapshot-complete')), false);
  assert.ok(pidAlive(h.pid), 'the source keeps running after a cancelled capture');
  await conn.stop(h, 1000);
});

test('a failed capture unlocks the CUDA-locked source, reports, and writes no snapshot-complete', async () => {
  const dir = scratch('capfail');
  const { fake, calls } = fakeCudaCheckpoint(dir);
  const profile = WorkerProfile.parse({
    name: 'capfail',
    command: ['python3', STANDIN(), '--dp', '1', '--no-color'],
    captureMode: 'criu',
    criu: { path: '/bin/false', cudaCheckpointPath: fake },
  });
  const conn = createConnection(profile, testEnv(dir));
  const h = track(conn, await conn.startSource('capfail', signal()));
  const phases: string[] = [];
  const cap = await conn.capture(h, signal(), (e) => {
    if (e.type === 'phase') phases.push(`${e.phase}:${e.state}`);
  });
  assert.equal(cap.ok, false);
  assert.match(cap.error!, /criu dump failed \(exit 1\)/);
  assert.ok(phases.includes('criu_dump:failed'), phases.join(' '));
  assert.ok(phases.includes('cuda_release:end'), phases.join(' '));
  const log = fs.readFileSync(calls, 'utf8');
  for (const step of ['--action lock', '--action checkpoint', '--action restore', '--action unlock']) assert.ok(log.includes(step), log);
  for (const f of fs.readdirSync(dir).filter((n) => n.startsWith('state-'))) assert.equal(fs.readFileSync(path.join(dir, f), 'utf8'), 'running');
  assert.equal(fs.existsSync(path.join(h.controlDir, 'snapshot-complete')), false);
  assert.ok(pidAlive(h.pid), 'the source keeps running after a failed capture');
  await conn.stop(h, 1000);
});

after(stopAllStarted);

test('an unwritable control directory is a clear error naming it', async () => {
  const profile = WorkerProfile.parse({ name: 'ro', command: ['sleep', '5'], controlDir: '/proc/dsw-control' });
  const conn = createConnection(profile, testEnv(scratch('ro')));
  await assert.rejects(conn.startSource('ro', signal()), (e: unknown) => {
    assert.ok(e instanceof AgentCommandError);
    assert.equal(e.code, 'control-dir-unwritable');
    assert.match(e.message, /control directory \/proc\/dsw-control is not writable/);
    return true;
  });
});

test('stale sentinels (including restore-complete) are removed before a new run', async () => {
  const dir = scratch('stale');
  const control = path.join(dir, 'ctl');
  fs.mkdirSync(control);
  for (const n of ['restore-complete', 'snapshot-complete', 'ready-for-snapshot']) fs.writeFileSync(path.join(control, n), 'old');
  const profile = WorkerProfile.parse({ name: 'st', command: ['sleep', '5'], controlDir: control });
  const conn = createConnection(profile, testEnv(dir));
  const h = track(conn, await conn.startSource('st', signal()));
  assert.deepEqual(fs.readdirSync(control), []);
  await conn.stop(h, 500);
});

test('unknown subcommand and bad config are reported as errors', async () => {
  const conn = createConnection(WorkerProfile.parse({ name: 'x', command: ['true'] }), testEnv(scratch('bad')));
  await assert.rejects(conn.startSource('../escape', signal()), /run id must be/);
  await assert.rejects(conn.reattach('nope', signal()).then((r) => assert.equal(r, undefined)).then(() => Promise.reject(new Error('ok'))), /ok/);
});

test('profile env values never appear in the worker\'s process list (config travels on stdin)', async () => {
  const secret = `s3cr3t-${process.pid}`;
  const profile = WorkerProfile.parse({ name: 'env', command: ['sleep', '5'], env: { HF_TOKEN: secret } });
  const conn = createConnection(profile, testEnv(scratch('env')));
  const h = track(conn, await conn.startSource('env', signal()));
  const cmdlines = fs.readdirSync('/proc').filter((d) => /^\d+$/.test(d)).map((d) => {
    try {
      return fs.readFileSync(`/proc/${d}/cmdline`, 'utf8');
    } catch {
      return '';
    }
  });
  assert.ok(!cmdlines.some((c) => c.includes(secret)));
  assert.equal((fs.statSync(h.runDir).mode & 0o077), 0, 'run dir is private to the worker user');
  await conn.stop(h, 500);
});

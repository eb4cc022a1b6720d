/**
 * The ssh transport against a real sshd on 127.0.0.1: hostile argv under several login shells,
 * connection errors, no orphan after a killed connection, a detached engine that survives and whose
 * log resumes with no gap or duplicate, and the whole protocol lifecycle of the stand-in engine.
 */
import assert from 'node:assert/strict';
import { execa } from 'execa';
import fs from 'node:fs';
import { after, before, test } from 'node:test';
import type { AgentEvent } from '../../../src/core/protocol/agentEvents';
import { WorkerProfile } from '../../../src/core/settings/workerProfile';
import { createConnection, TransportError } from '../../../src/transport';
import { readAgentScript } from '../../../src/transport/agentLoader';
import { startAgent } from '../../../src/transport/agentSession';
import { SshTransport } from '../../../src/transport/ssh';
import { STANDIN, collect, pidAlive, removeRunDir, repoRoot, scratch, stopAllStarted, testEnv, track, waitUntil } from '../../unit/transport/helpers';
import { rng, randomArgv } from './fuzzArgs';
import { skipOrFail, sshdUnavailable, startSshd, type TestSshd } from '../support/sshd';

let sshd: TestSshd | undefined;
const why = sshdUnavailable();
const transports: SshTransport[] = [];

before(async () => {
  if (!why) sshd = await startSshd();
});
after(stopAllStarted);
after(async () => {
  for (const t of transports) await t.dispose();
  await sshd?.stop();
});

function env() {
  return testEnv(scratch('ssh'), { sshConfigFile: sshd!.configFile });
}
function transportFor(host: string): SshTransport {
  const t = new SshTransport({ kind: 'ssh', host, options: [] }, env());
  transports.push(t);
  return t;
}
function profileFor(host: string, command: string[], more: object = {}) {
  return WorkerProfile.parse({ name: `p-${host}`, transport: { kind: 'ssh', host }, python: '/usr/bin/python3', command, ...more });
}

const ECHO = 'import sys,json;sys.stdout.write(json.dumps(sys.argv[1:]))';
const FUZZ_PER_SHELL = 1000;
const BATCH = 40;

test('hostile argv reaches the remote program unchanged under every login shell (fuzz)', async (t) => {
  if (why) return skipOrFail(t, why);
  const deadline = Date.now() + 150_000;
  let total = 0;
  for (const shell of Object.keys(sshd!.hosts).filter((s) => s !== 'root')) {
    const tr = transportFor(sshd!.hosts[shell]!);
    await tr.connect();
    const seed = 1000 + shell.length;
    const r = rng(seed);
    for (let done = 0; done < FUZZ_PER_SHELL && Date.now() < deadline; done += BATCH) {
      // One remote call carries BATCH argv lists back to back; each word is quoted on its own, so this
      // is the same test as one call per list, 40 times cheaper.
      const lists = Array.from({ length: BATCH }, () => randomArgv(r));
      const flat = lists.flat();
      const res = await tr.run(['python3', '-c', ECHO, ...flat], { timeoutMs: 30_000 });
      assert.equal(res.code, 0, `${shell}: exit ${res.code}: ${res.stderr}`);
      assert.deepEqual(JSON.parse(res.stdout), flat, `${shell} (seed ${seed}, batch at ${done}) changed an argument`);
      total += lists.length;
    }
  }
  t.diagnostic(`fuzz: ${total} random argv lists round-tripped`);
  assert.ok(total >= 3 * FUZZ_PER_SHELL, `only ${total} lists ran within the time bound`);
});

test('an unreachable host is a clear connection error that says what to try', async (t) => {
  if (why) return skipOrFail(t, why);
  const cfg = `${sshd!.dir}/bad_config`;
  fs.writeFileSync(cfg, 'Host dsw-nowhere\n  HostName 127.0.0.1\n  Port 1\n  BatchMode yes\n');
  const profile = WorkerProfile.parse({ name: 'bad', transport: { kind: 'ssh', host: 'dsw-nowhere' }, command: ['true'] });
  const conn = createConnection(profile, testEnv(scratch('bad'), { sshConfigFile: cfg }));
  await assert.rejects(conn.hello(AbortSignal.timeout(30_000)), (e: unknown) => {
    assert.ok(e instanceof TransportError, String(e));
    assert.match(e.message, /Cannot reach dsw-nowhere over ssh: .*refused/);
    assert.match(e.message, /Try "ssh dsw-nowhere" in a terminal/);
    return true;
  });
});

test('a killed connection leaves no orphan of an attached job', async (t) => {
  if (why) return skipOrFail(t, why);
  const host = sshd!.hosts.dash!;
  const marker = `/tmp/dsw-orphan-${process.pid}`;
  fs.rmSync(marker, { force: true });
  const profile = profileFor(host, ['python3', STANDIN(), '--dp', '1', '--no-color'], {
    captureMode: 'command',
    captureCommand: ['sh', '-c', `echo $$ > ${marker}; exec sleep 600`],
  });
  const conn = createConnection(profile, env());
  const h = track(conn, await conn.startSource(`orphan-${process.pid}`, AbortSignal.timeout(30_000)));
  try {
    const tr = transportFor(host);
    const cfg = { runDir: h.runDir, mode: 'command', captureCommand: profile.captureCommand, readyTimeoutS: 30, timeoutS: 600 };
    const session = startAgent(tr, '/usr/bin/python3', readAgentScript(repoRoot()), 'capture', cfg);
    void (async () => {
      for await (const _ of session.events()) { /* drain */ }
    })().catch(() => undefined);
    await waitUntil(() => fs.existsSync(marker) && fs.readFileSync(marker, 'utf8').trim() !== '', 20_000, 'attached job started');
    const jobPid = Number(fs.readFileSync(marker, 'utf8'));
    assert.ok(pidAlive(jobPid));
    session.kill(); // SIGKILL the local ssh and drop our end of its pipes, as a crashing extension host would
    await waitUntil(() => !pidAlive(jobPid), 15_000, `attached job ${jobPid} to die after the connection was killed`).catch(async (e: unknown) => {
      const ps = await execa('ps', ['-o', 'pid,ppid,pgid,stat,etime,cmd', '-u', 'dswdash'], { reject: false });
      throw new Error(`${String(e)}\n${ps.stdout}`);
    });
    assert.ok(pidAlive(h.pid), 'the detached engine must survive');
  } finally {
    await conn.stop(h, 2000);
    await conn.dispose();
    fs.rmSync(marker, { force: true });
    removeRunDir(h.runDir);
  }
});

test('a detached engine survives a dropped connection; logs resume with no gap or duplicate', async (t) => {
  if (why) return skipOrFail(t, why);
  const host = sshd!.hosts.zsh!;
  const writer = 'import time\nfor i in range(200000):\n print("(EngineCore_DP%d pid=7) line %d" % (i % 2, i), flush=True)\n time.sleep(0.0005)';
  const profile = profileFor(host, ['python3', '-c', writer]);
  const conn = createConnection(profile, env());
  const h = track(conn, await conn.startSource(`resume-${process.pid}`, AbortSignal.timeout(30_000)));
  const tr = transportFor(host);
  const script = readAgentScript(repoRoot());
  const offsets: Record<string, number> = {};
  let text = '';
  for (let round = 0; round < 3; round++) {
    const s = startAgent(tr, '/usr/bin/python3', script, 'follow', { runDir: h.runDir, offsets });
    const got: AgentEvent[] = [];
    const until = Date.now() + 700;
    for await (const e of s.events()) {
      if (e.type === 'log') {
        assert.equal(e.start, offsets[e.file] ?? 0, 'each chunk starts where the last one ended');
        offsets[e.file] = e.end;
        text += e.data;
      }
      got.push(e);
      if (Date.now() > until) break;
    }
    s.kill(); // drop the connection mid-stream
    await s.exited;
    assert.ok(got.length > 0);
  }
  const again = await conn.reattach(`resume-${process.pid}`, AbortSignal.timeout(30_000));
  assert.ok(again, 'the engine survived three dropped connections');
  const lines = text.split('\n').filter(Boolean);
  lines.forEach((l, i) => assert.equal(l, `(EngineCore_DP${i % 2} pid=7) line ${i}`));
  t.diagnostic(`${lines.length} lines over 3 connections, none lost or repeated`);
  await conn.stop(h, 2000);
  await conn.dispose();
  removeRunDir(h.runDir);
});

for (const shell of ['bash', 'dash', 'zsh']) {
  test(`stand-in engine lifecycle over ssh (${shell} login shell)`, async (t) => {
    if (why) return skipOrFail(t, why);
    const conn = createConnection(profileFor(sshd!.hosts[shell]!, ['python3', STANDIN(), '--dp', '2']), env());
    const hello = await conn.hello(AbortSignal.timeout(30_000));
    assert.equal(hello.isRoot, false);
    const h = track(conn, await conn.startSource(`life-${shell}-${process.pid}`, AbortSignal.timeout(30_000)));
    const f = collect(conn, h);
    await f.waitFor((e) => e.type === 'sentinel' && e.name === 'ready-for-snapshot' && e.action === 'created');
    const cap = await conn.capture(h, AbortSignal.timeout(30_000));
    assert.equal(cap.ok, true, cap.error);
    const exit = await f.waitFor((e) => e.type === 'process_exit');
    assert.ok(exit.type === 'process_exit' && exit.code === 0 && exit.signal === null);
    await waitUntil(() => f.logText().includes('(EngineCore_DP1 pid='), 5000, 'rank 1 lines');
    await f.stop();
    await conn.stop(h, 1000);
    await conn.dispose();
    removeRunDir(h.runDir);
  });
}

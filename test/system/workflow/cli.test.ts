/**
 * The headless workflow (`node dist/cli.js run`) against real parts: the local-demo stand-in (exit 0
 * and a JSON report), the stand-in's SystemExit switch (exit 1, sourceExit failed with SIGSEGV and
 * the SNAP001 line of the workspace's snapshot module), usage errors (exit 2), and — when sshd and
 * the private CRIU are here — a criu-mode run over a real sshd whose restored engine answers.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import test from 'node:test';
import { RunRecordSchema, type RunRecord } from '../../../src/core/workflow/records';
import { repoRoot } from '../../support/paths';
import { CLI, runCli } from '../support/cli';
import { findCriu } from '../support/criu';
import { skipOrFail, sshdUnavailable, startSshd } from '../support/sshd';

const STANDIN = path.join(repoRoot, 'media', 'engine', 'standin_engine.py');

const cli = (args: string[], cwd: string, timeoutMs = 120_000) => runCli(args, cwd, timeoutMs);

function workspace(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'dsw-cli-ws-'));
}

function parse(stdout: string): RunRecord {
  const r = RunRecordSchema.safeParse(JSON.parse(stdout));
  assert.ok(r.success, r.success ? '' : JSON.stringify(r.error.issues[0]));
  return r.data;
}

test('run --worker local-demo --format json: exit 0 and a versioned JSON report', { timeout: 120_000 }, async (t) => {
  const ws = workspace();
  const records = path.join(ws, 'records');
  const r = await cli(['run', '--worker', 'local-demo', '--format', 'json', '--records', records], ws);
  assert.equal(r.code, 0, r.stderr.slice(-3000));
  const rec = parse(r.stdout);
  assert.equal(rec.schema, 'dynamo-snapshot-workbench/run');
  assert.equal(rec.version, 1);
  assert.deepEqual(rec.steps.map((s) => s.name), ['connect', 'preflight', 'start', 'warmup', 'ready', 'capture', 'sourceExit', 'restore', 'resume', 'smoke', 'report']);
  for (const s of rec.steps) {
    assert.equal(s.state, 'passed', `${s.name}: ${s.verdict}`);
    assert.ok(s.startedAt! <= s.endedAt!);
  }
  assert.ok(rec.metrics.restoreMs! > 0);
  // Progress went to stderr, one line per transition; the record and per-rank logs were written.
  assert.match(r.stderr, /Warm-up \(every rank\): ✓ passed/);
  assert.ok(fs.existsSync(path.join(records, `run-${rec.runId}.json`)));
  const logs = fs.readdirSync(records).find((d) => d.startsWith('logs-'))!;
  assert.ok(fs.readdirSync(path.join(records, logs)).includes('DP1.log'), 'per-rank log files');
  t.diagnostic(`local-demo: ${rec.steps.map((s) => `${s.name} ${(s.endedAt! - s.startedAt!)} ms`).join(', ')}; restore ${Math.round(rec.metrics.restoreMs!)} ms`);
});

test('with the SystemExit switch: exit 1, sourceExit failed with SIGSEGV and the SNAP001 line', { timeout: 120_000 }, async () => {
  const ws = workspace();
  const mod = path.join(ws, 'components', 'src', 'dynamo', 'vllm', 'snapshot.py');
  fs.mkdirSync(path.dirname(mod), { recursive: true });
  fs.writeFileSync(mod, 'from dynamo.common.snapshot.lifecycle import EngineSnapshotController\n\n\nasync def run(controller: EngineSnapshotController):\n    restored = await controller.wait_for_restore()\n    if not restored:\n        raise SystemExit(0)\n');
  fs.mkdirSync(path.join(ws, '.vscode'));
  fs.writeFileSync(path.join(ws, '.vscode', 'settings.json'), JSON.stringify({
    'dynamoSnapshot.workers': [{ name: 'demo-systemexit', command: ['python3', STANDIN, '--dp', '2', '--exit-mode', 'systemexit'], dataParallelSize: 2, timeouts: { exitSeconds: 20 } }],
  }));
  const r = await cli(['run', '--worker', 'demo-systemexit', '--format', 'json'], ws);
  assert.equal(r.code, 1, r.stderr.slice(-3000));
  const rec = parse(r.stdout);
  const se = rec.steps.find((s) => s.name === 'sourceExit')!;
  assert.equal(se.state, 'failed');
  assert.match(se.verdict!, /killed by SIGSEGV/);
  assert.ok(se.evidence.some((e) => e.kind === 'log' && /raising SystemExit/.test(e.text)));
  const diag = se.evidence.find((e) => e.kind === 'diagnostic');
  assert.ok(diag, JSON.stringify(se.evidence.slice(-3)));
  assert.deepEqual(diag.location, { file: mod, line: 6 });
  assert.equal(rec.steps.find((s) => s.name === 'restore')!.state, 'skipped');
});

test('usage errors exit 2 and say what is wrong', async () => {
  const ws = workspace();
  const cases: [string[], RegExp][] = [
    [['run'], /--worker NAME is required/],
    [['run', '--worker', 'nope'], /no worker profile named "nope"; known: local-demo/],
    [['run', '--worker', 'local-demo', '--steps', 'warmpu'], /unknown step\(s\) "warmpu"/],
    [['run', '--worker', 'local-demo', '--format', 'xml'], /--format must be text or json/],
    [['run', '--worker', 'local-demo', '--config', path.join(ws, 'missing.json')], /cannot read/],
  ];
  for (const [args, why] of cases) {
    const r = await cli(args, ws);
    assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
    assert.match(r.stderr, why);
  }
});

test('--steps runs a prefix: connect and preflight only', { timeout: 60_000 }, async () => {
  const r = await cli(['run', '--worker', 'local-demo', '--steps', 'connect,preflight', '--format', 'json'], workspace());
  assert.equal(r.code, 0, r.stderr);
  const rec = parse(r.stdout);
  assert.deepEqual(rec.steps.filter((s) => s.state !== 'skipped').map((s) => s.name), ['connect', 'preflight', 'report']);
});

test('criu mode over a real sshd: every step passes and the restored stand-in answers', { timeout: 300_000 }, async (t) => {
  const why = sshdUnavailable();
  if (why) return skipOrFail(t, why);
  const criu = await findCriu(repoRoot);
  if (!criu.path) return skipOrFail(t, criu.why!);
  const sshd = await startSshd();
  try {
    const ws = workspace();
    const cfg = path.join(ws, 'dsw.json');
    fs.writeFileSync(cfg, JSON.stringify({
      'dynamoSnapshot.ssh.configFile': sshd.configFile,
      'dynamoSnapshot.workers': [{
        name: 'criu-ssh',
        transport: { kind: 'ssh', host: sshd.hosts.root },
        command: ['python3', STANDIN, '--dp', '2', '--memory-mb', '32', '--no-color'],
        dataParallelSize: 2,
        captureMode: 'criu',
        criu: { path: criu.path },
        smoke: { requests: 3 },
        timeouts: { readySeconds: 60, captureSeconds: 120, restoreSeconds: 120, exitSeconds: 30 },
      }],
    }));
    const r = await cli(['run', '--worker', 'criu-ssh', '--config', cfg, '--format', 'json'], ws, 280_000);
    assert.equal(r.code, 0, r.stderr.slice(-4000));
    const rec = parse(r.stdout);
    for (const s of rec.steps) assert.equal(s.state, 'passed', `${s.name}: ${s.verdict}`);
    assert.equal(rec.transport, 'ssh');
    assert.equal(rec.captureMode, 'criu');
    assert.ok(rec.metrics.phaseTimingsMs?.['capture.criu_dump'] !== undefined, 'criu dump timing');
    assert.ok(rec.metrics.phaseTimingsMs?.['restore.criu_restore'] !== undefined, 'criu restore timing');
    assert.match(rec.steps.find((s) => s.name === 'smoke')!.verdict!, /3 of 3 requests answered/);
    t.diagnostic(`criu over ssh: dump ${rec.metrics.phaseTimingsMs?.['capture.criu_dump']} ms, restore time ${Math.round(rec.metrics.restoreMs!)} ms`);
  } finally {
    await sshd.stop();
  }
});

test('a signal cancels the run: the source is stopped, the report still prints, exit 1; a second signal quits at once with 128 + its number', { timeout: 120_000 }, async () => {
  const ws = workspace();
  const runOnce = (second: boolean) =>
    new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
      const child = spawn(process.execPath, [CLI, 'run', '--worker', 'local-demo', '--format', 'json'], { cwd: ws, stdio: ['ignore', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      let sent = 0;
      child.stdout.on('data', (d) => (stdout += d));
      child.stderr.on('data', (d) => {
        stderr += d;
        // First signal once the source runs (warm-up under way); the second once the first was taken.
        if (sent === 0 && /Warm-up/.test(stderr)) {
          sent = 1;
          child.kill('SIGTERM');
        } else if (second && sent === 1 && /dsw run: cancelling/.test(stderr)) {
          sent = 2;
          child.kill('SIGTERM');
        }
      });
      const timer = setTimeout(() => child.kill('SIGKILL'), 100_000);
      child.on('close', (code) => {
        clearTimeout(timer);
        resolve({ code, stdout, stderr });
      });
    });

  const r = await runOnce(false);
  assert.equal(r.code, 1, r.stderr.slice(-3000));
  const rec = parse(r.stdout);
  assert.ok(rec.steps.some((s) => s.state === 'cancelled'), JSON.stringify(rec.steps.map((s) => [s.name, s.state])));
  // What the run started is gone: every recorded process of the run dir has ended.
  const procs = path.join(rec.logs.runDir!, 'procs');
  const pids = fs.readdirSync(procs).filter((f) => /^[a-z]+-\d+\.json$/.test(f)).map((f) => (JSON.parse(fs.readFileSync(path.join(procs, f), 'utf8')) as { pid: number }).pid);
  assert.ok(pids.length > 0);
  for (const pid of pids) {
    const stat = fs.existsSync(`/proc/${pid}/stat`) ? fs.readFileSync(`/proc/${pid}/stat`, 'utf8') : '';
    assert.ok(stat === '' || / Z /.test(stat), `pid ${pid} still runs after the cancelled run`);
  }

  const twice = await runOnce(true);
  // Quitting at once leaves the detached source running (that is what the second signal asks for): stop it here.
  const runId = /run (\S+) on local-demo/.exec(twice.stderr)?.[1];
  const left = runId ? path.join(os.tmpdir(), `dsw-${os.userInfo().uid}`, 'runs', runId, 'procs') : '';
  for (const f of left && fs.existsSync(left) ? fs.readdirSync(left).filter((x) => /^[a-z]+-\d+\.json$/.test(x)) : []) {
    const { pgid } = JSON.parse(fs.readFileSync(path.join(left, f), 'utf8')) as { pgid?: number };
    if (pgid) {
      try {
        process.kill(-pgid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
  }
  assert.equal(twice.code, 143, twice.stderr.slice(-3000));
});

/**
 * The real ai-dynamo lifecycle (the pinned package in .venv) under our workflow, end to end to the
 * smoke requests: media/engine/real_lifecycle_engine.py runs SnapshotConfig, configure_snapshot_capture_env,
 * EngineSnapshotController.wait_for_restore(), the restore-context reader and elect_and_wake around the
 * stand-in's CPU engine with 2 DP ranks. Through the local transport and a real sshd, in protocol and
 * criu mode, vLLM and SGLang shapes, both snapshot agent generations. Every run must pass every step
 * with no warning and exactly the ranks main, DP0, DP1.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import test from 'node:test';
import { RunRecordSchema, type RunRecord } from '../../../src/core/workflow/records';
import { repoRoot } from '../../support/paths';
import { runCli } from '../support/cli';
import { findCriu } from '../support/criu';
import { findDynamo } from '../support/dynamo';
import { skipOrFail, sshdUnavailable, startSshd } from '../support/sshd';

const ENGINE = path.join(repoRoot, 'media', 'engine', 'real_lifecycle_engine.py');
const STANDIN = path.join(repoRoot, 'media', 'engine', 'standin_engine.py');

function workspace(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'dsw-real-'));
}

interface Case {
  name: string;
  python: string;
  engine?: string;
  backend?: 'vllm' | 'sglang';
  transport?: Record<string, unknown>;
  captureMode?: 'protocol' | 'criu';
  snapshotProtocol?: 'release' | 'kill';
  criuPath?: string;
  sshConfigFile?: string;
  extra?: string[];
}

/** One `dsw run` of a profile written to a config file, as a user would: the run record back. */
export async function runProfile(c: Case, timeoutMs = 240_000): Promise<RunRecord> {
  const ws = workspace();
  const cfg = path.join(ws, 'dsw.json');
  fs.writeFileSync(cfg, JSON.stringify({
    ...(c.sshConfigFile ? { 'dynamoSnapshot.ssh.configFile': c.sshConfigFile } : {}),
    'dynamoSnapshot.workers': [{
      name: c.name,
      transport: c.transport ?? { kind: 'local' },
      backend: c.backend ?? 'vllm',
      command: [c.python, c.engine ?? ENGINE, '--dp', '2', '--memory-mb', '24', '--log-format', c.backend ?? 'vllm', ...(c.extra ?? [])],
      dataParallelSize: 2,
      captureMode: c.captureMode ?? 'protocol',
      snapshotProtocol: c.snapshotProtocol ?? 'auto',
      ...(c.criuPath ? { criu: { path: c.criuPath } } : {}),
      restoreContextEnv: { DYN_NAMESPACE: 'restored-ns' },
      smoke: { requests: 3 },
      timeouts: { readySeconds: 90, captureSeconds: 120, restoreSeconds: 120, exitSeconds: 30 },
    }],
  }));
  const r = await runCli(['run', '--worker', c.name, '--config', cfg, '--format', 'json'], ws, timeoutMs);
  assert.ok(r.stdout.trim().startsWith('{'), `no run record (exit ${r.code}): ${r.stderr.slice(-3000)}`);
  const parsed = RunRecordSchema.safeParse(JSON.parse(r.stdout));
  assert.ok(parsed.success, parsed.success ? '' : JSON.stringify(parsed.error.issues[0]));
  assert.equal(r.code, 0, `${c.name}: exit ${r.code}\n${parsed.data.steps.map((s) => `${s.name} ${s.state}: ${s.verdict}`).join('\n')}\n${r.stderr.slice(-2000)}`);
  return parsed.data;
}

/** Every step passed (none warned), and the ranks are exactly the real ones. */
export function assertClean(rec: RunRecord): void {
  for (const s of rec.steps) assert.equal(s.state, 'passed', `${s.name}: ${s.verdict}`);
  assert.deepEqual(rec.ranks.map((r) => r.id), ['main', 'DP0', 'DP1']);
}

test('local, protocol mode, vLLM shapes: the real lifecycle passes every step', { timeout: 300_000 }, async (t) => {
  const d = await findDynamo(repoRoot);
  if (!d.python) return skipOrFail(t, d.why!);
  const rec = await runProfile({ name: 'real-vllm', python: d.python });
  assertClean(rec);
  assert.match(rec.steps.find((s) => s.name === 'warmup')!.verdict!, /by the main process for every rank \(DP0, DP1\)/);
  const restore = rec.steps.find((s) => s.name === 'resume')!;
  assert.ok(restore.evidence.some((e) => e.text.includes('Restore sentinel detected; returning application-paused')), 'the 1.6.1 lifecycle line');
  assert.ok(restore.evidence.some((e) => e.text.includes('Applied snapshot restore context runtime env')), 'the real restore-context reader ran');
  t.diagnostic(`real lifecycle, vLLM: restore time ${Math.round(rec.metrics.restoreMs!)} ms`);
});

test('local, protocol mode, SGLang shapes ([ts DP1] prefixes, SystemExit(0) after capture)', { timeout: 300_000 }, async (t) => {
  const d = await findDynamo(repoRoot);
  if (!d.python) return skipOrFail(t, d.why!);
  assertClean(await runProfile({ name: 'real-sglang', python: d.python, backend: 'sglang' }));
});

test('the kill generation (Snapshot #101) in protocol mode: the capture ends the source, restore-complete carries pid=N', { timeout: 300_000 }, async (t) => {
  const d = await findDynamo(repoRoot);
  if (!d.python) return skipOrFail(t, d.why!);
  const rec = await runProfile({ name: 'real-kill', python: d.python, snapshotProtocol: 'kill' });
  assertClean(rec);
  assert.match(rec.steps.find((s) => s.name === 'sourceExit')!.verdict!, /killed by SIGKILL by the capture/);
  const control = path.join(rec.logs.runDir!, 'control');
  assert.match(fs.readFileSync(path.join(control, 'restore-complete'), 'utf8'), /^pid=\d+\n$/);
  assert.equal(fs.existsSync(path.join(control, 'snapshot-complete')), false);
});

test('over a real sshd (protocol mode, a non-root user with a bash login shell)', { timeout: 300_000 }, async (t) => {
  const d = await findDynamo(repoRoot);
  if (!d.python) return skipOrFail(t, d.why!);
  const why = sshdUnavailable();
  if (why) return skipOrFail(t, why);
  const sshd = await startSshd();
  try {
    const rec = await runProfile({ name: 'real-ssh', python: d.python, transport: { kind: 'ssh', host: sshd.hosts.bash }, sshConfigFile: sshd.configFile });
    assertClean(rec);
    assert.equal(rec.transport, 'ssh');
  } finally {
    await sshd.stop();
  }
});

test('criu mode, local, as root: dump, source exit, restore of the real lifecycle, which resumes in its polling loop', { timeout: 300_000 }, async (t) => {
  const d = await findDynamo(repoRoot);
  if (!d.python) return skipOrFail(t, d.why!);
  const criu = await findCriu(repoRoot);
  if (!criu.path) return skipOrFail(t, criu.why!);
  const rec = await runProfile({ name: 'real-criu', python: d.python, captureMode: 'criu', criuPath: criu.path });
  assertClean(rec);
  assert.ok(rec.metrics.phaseTimingsMs?.['restore.criu_restore'] !== undefined, 'criu restore timing');
  t.diagnostic(`real lifecycle under CRIU: dump ${rec.metrics.phaseTimingsMs?.['capture.criu_dump']} ms, image ${((rec.metrics.imageBytes ?? 0) / 1048576).toFixed(1)} MiB, restore time ${Math.round(rec.metrics.restoreMs!)} ms`);
});

test('criu mode over ssh as root, SGLang shapes, the kill generation (no --leave-running: the dump ends the source)', { timeout: 300_000 }, async (t) => {
  const d = await findDynamo(repoRoot);
  if (!d.python) return skipOrFail(t, d.why!);
  const criu = await findCriu(repoRoot);
  if (!criu.path) return skipOrFail(t, criu.why!);
  const why = sshdUnavailable();
  if (why) return skipOrFail(t, why);
  const sshd = await startSshd();
  try {
    const rec = await runProfile({ name: 'real-criu-ssh', python: d.python, backend: 'sglang', captureMode: 'criu', criuPath: criu.path, snapshotProtocol: 'kill', transport: { kind: 'ssh', host: sshd.hosts.root }, sshConfigFile: sshd.configFile });
    assertClean(rec);
    assert.match(rec.steps.find((s) => s.name === 'sourceExit')!.verdict!, /by the capture/);
    t.diagnostic(`real lifecycle under CRIU over ssh (kill generation): dump ${rec.metrics.phaseTimingsMs?.['capture.criu_dump']} ms, restore time ${Math.round(rec.metrics.restoreMs!)} ms`);
  } finally {
    await sshd.stop();
  }
});

/** What a run says, without what differs between two runs of the same thing (times, pids, ports, paths). */
function shape(rec: RunRecord): unknown {
  const norm = (s: string | undefined) => (s ?? '').replace(/\d+(\.\d+)? ?(ms|s)\b/g, 'T').replace(/\d+(\.\d+)?/g, 'N');
  return {
    steps: rec.steps.map((s) => [s.name, s.state, norm(s.verdict)]),
    ranks: rec.ranks.map((r) => [r.id, Object.keys(r.markers).sort()]),
  };
}

test('the stand-in and the real lifecycle give the same markers, ranks and verdicts for the same run', { timeout: 400_000 }, async (t) => {
  const d = await findDynamo(repoRoot);
  if (!d.python) return skipOrFail(t, d.why!);
  for (const backend of ['vllm', 'sglang'] as const) {
    const real = await runProfile({ name: `parity-real-${backend}`, python: d.python, backend });
    const standin = await runProfile({ name: `parity-standin-${backend}`, python: 'python3', engine: STANDIN, backend });
    assert.deepEqual(shape(standin), shape(real), `${backend}: the stand-in drifted from the real lifecycle`);
    t.diagnostic(`${backend}: ${JSON.stringify((shape(real) as { ranks: unknown }).ranks)}`);
  }
});

test('without the package, the real-lifecycle engine says exactly what is missing and the run fails with it', { timeout: 120_000 }, async () => {
  // The system python3 has no ai-dynamo (the pinned one lives only in .venv).
  const ws = workspace();
  const cfg = path.join(ws, 'dsw.json');
  fs.writeFileSync(cfg, JSON.stringify({ 'dynamoSnapshot.workers': [{ name: 'no-dynamo', command: ['/usr/bin/python3', ENGINE, '--dp', '2'], timeouts: { readySeconds: 30 } }] }));
  const r = await runCli(['run', '--worker', 'no-dynamo', '--config', cfg, '--format', 'json'], ws);
  assert.equal(r.code, 1, r.stderr.slice(-2000));
  const rec = RunRecordSchema.parse(JSON.parse(r.stdout));
  const failed = rec.steps.find((s) => s.state === 'failed')!;
  assert.match(failed.verdict!, /status 3/);
  assert.ok(failed.evidence.some((e) => /dynamo\.common\.snapshot \(ai-dynamo\) is not importable with \/usr\/bin\/python3 \(ModuleNotFoundError: No module named 'dynamo'\)/.test(e.text)), JSON.stringify(failed.evidence.slice(-4)));
});

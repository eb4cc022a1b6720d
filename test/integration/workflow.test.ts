/**
 * The snapshot workflow inside a real VS Code extension host: Run Snapshot Smoke Test takes the
 * local-demo stand-in through every step; with the stand-in's SystemExit switch the source exit fails
 * with SIGSEGV evidence; cancelling mid-run leaves no process behind; run records are written, read
 * back, and rendered.
 */
import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import * as vscode from 'vscode';
import type { WorkbenchApi } from '../../src/extension';
import { localDemoProfile } from '../../src/core/settings/builtinProfiles';
import { readRecord, type RunRecord } from '../../src/core/workflow/records';
import type { RunEvent } from '../../src/core/workflow/types';
import { SAVED_SOURCES_KEY, type WorkflowController } from '../../src/ui/workflow/service';

const EXTENSION_ID = 'dynamo-snapshot-workbench.dynamo-snapshot-workbench';

async function api(): Promise<WorkbenchApi> {
  const ext = vscode.extensions.getExtension<WorkbenchApi>(EXTENSION_ID);
  assert.ok(ext, `extension ${EXTENSION_ID} is installed in the host`);
  return ext.isActive ? ext.exports : await ext.activate();
}

async function workflow(): Promise<{ a: WorkbenchApi; c: WorkflowController }> {
  const a = await api();
  const c = a.ctx.service<WorkflowController>('workflow');
  assert.ok(c, 'the workflow service is registered');
  return { a, c };
}

function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Processes whose command line names the run (the agent's subcommands carry the run dir). */
function processesOf(runId: string): string[] {
  const out: string[] = [];
  for (const pid of fs.readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      const cmd = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ');
      if (cmd.includes(runId) && Number(pid) !== process.pid) out.push(`${pid}: ${cmd.slice(0, 120)}`);
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

function pgidOf(r: RunRecord): number {
  const m = /process group (\d+)/.exec(r.steps.find((s) => s.name === 'start')?.verdict ?? '');
  assert.ok(m, 'the start step names the process group');
  return Number(m[1]);
}

function restoredPid(r: RunRecord): number {
  const e = r.steps.find((s) => s.name === 'restore')?.evidence.find((x) => /restored process pid \d+/.test(x.text));
  assert.ok(e, 'the restore step names the restored process');
  return Number(/pid (\d+)/.exec(e.text)![1]);
}

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

suite('Workflow: the snapshot workflow in VS Code', () => {
  const runIds: string[] = [];

  test('Run Snapshot Smoke Test on local-demo passes every step and writes a record', async () => {
    const { a, c } = await workflow();
    const events: RunEvent[] = [];
    const sub = a.ctx.runEvents.event((e) => events.push(e));
    const statusTexts = new Set<string>();
    const poll = setInterval(() => statusTexts.add(String(c.activeRun()?.step ?? '')), 20);
    let record: RunRecord | undefined;
    try {
      record = await vscode.commands.executeCommand<RunRecord>('dynamoSnapshot.runSmokeTest', 'local-demo');
    } finally {
      clearInterval(poll);
      sub.dispose();
    }
    assert.ok(record, 'the command returns the run record');
    for (const s of record.steps) assert.strictEqual(s.state, 'passed', `${s.name}: ${s.state}: ${s.verdict}`);
    assert.strictEqual(record.outcome, 'passed');
    assert.ok(record.metrics.restoreMs! > 0, 'restore time measured');
    assert.ok(events.some((e) => e.type === 'run-started') && events.some((e) => e.type === 'run-ended'));
    assert.ok(events.some((e) => e.type === 'rank-marker' && e.rank === 'main' && e.phase === 'warmup'), 'the main process\'s warm-up marker (logged once for every DP rank) reaches ctx.runEvents');
    assert.ok(statusTexts.has('warmup') || statusTexts.has('restore'), `the active run names its step (${[...statusTexts].join(',')})`);
    assert.strictEqual(c.activeRun(), undefined);
    assert.ok(!groupAlive(pgidOf(record)), 'the source is gone');
    assert.ok(!pidAlive(restoredPid(record)), 'the full smoke test stops the restored worker it started');
    const list = await c.listRecords();
    const found = list.records.find((x) => x.record.runId === record!.runId);
    assert.ok(found, 'the run record is listed');
    const back = await readRecord(found.file);
    assert.ok(back.ok, back.ok ? '' : back.problem);
    assert.deepStrictEqual(back.record.steps.map((s) => s.state), record.steps.map((s) => s.state));
    runIds.push(record.runId);
  });

  test('with the SystemExit switch, source exit fails with SIGSEGV evidence', async () => {
    const { a, c } = await workflow();
    const root = vscode.extensions.getExtension(EXTENSION_ID)!.extensionPath;
    const profile = { ...localDemoProfile(root, ['--exit-mode', 'systemexit']), name: 'local-demo-systemexit' };
    void a;
    // The workspace holds the backend's snapshot module with the bug: the verdict links to its line.
    const folder = vscode.workspace.workspaceFolders![0]!.uri.fsPath;
    const mod = path.join(folder, 'components', 'src', 'dynamo', 'vllm', 'snapshot.py');
    fs.mkdirSync(path.dirname(mod), { recursive: true });
    fs.writeFileSync(mod, 'from dynamo.common.snapshot.lifecycle import EngineSnapshotController\n\n\nasync def run(controller: EngineSnapshotController):\n    if not await controller.wait_for_restore():\n        raise SystemExit(0)\n');
    const { record } = await c.run(profile, undefined, 'Snapshot Smoke Test', false);
    fs.rmSync(path.join(folder, 'components'), { recursive: true, force: true });
    const se = record.steps.find((s) => s.name === 'sourceExit')!;
    assert.strictEqual(se.state, 'failed', se.verdict);
    assert.match(se.verdict!, /SIGSEGV/);
    assert.ok(se.evidence.some((e) => e.kind === 'exit' && /SIGSEGV/.test(e.text)));
    assert.ok(se.evidence.some((e) => e.kind === 'log' && /SystemExit/.test(e.text)), 'the log tail is evidence');
    const link = se.evidence.find((e) => e.kind === 'diagnostic');
    assert.ok(link, `a SNAP001 link: ${JSON.stringify(se.evidence.slice(-2))}`);
    assert.deepStrictEqual(link.location, { file: mod, line: 5 });
    assert.strictEqual(record.steps.find((s) => s.name === 'restore')!.state, 'skipped');
    assert.strictEqual(record.outcome, 'failed');
    runIds.push(record.runId);
  });

  test('cancelling mid-run records the run as cancelled and leaves no process behind', async () => {
    const { a, c } = await workflow();
    const warming = new Promise<void>((resolve) => {
      const sub = a.ctx.runEvents.event((e) => {
        if (e.type === 'rank-marker' && e.phase === 'warmup') {
          sub.dispose();
          resolve();
        }
      });
    });
    const running = vscode.commands.executeCommand<RunRecord>('dynamoSnapshot.runSmokeTest', 'local-demo');
    await warming;
    assert.ok(c.activeRun(), 'a run is active');
    // A second run cannot start while one is going: the command says why and returns nothing.
    assert.strictEqual(await vscode.commands.executeCommand('dynamoSnapshot.runSmokeTest', 'local-demo'), undefined);
    assert.strictEqual(await vscode.commands.executeCommand('dynamoSnapshot.cancelRun'), true);
    const record = await running;
    assert.ok(record);
    assert.strictEqual(record.outcome, 'cancelled');
    assert.ok(record.steps.some((s) => s.state === 'cancelled'));
    const pgid = pgidOf(record);
    for (let i = 0; i < 50 && groupAlive(pgid); i++) await new Promise((r) => setTimeout(r, 100));
    assert.ok(!groupAlive(pgid), `process group ${pgid} is gone`);
    for (let i = 0; i < 50 && processesOf(record.runId).length > 0; i++) await new Promise((r) => setTimeout(r, 100));
    assert.deepStrictEqual(processesOf(record.runId), [], 'no agent or engine process of the run is left');
    assert.strictEqual(await vscode.commands.executeCommand('dynamoSnapshot.cancelRun'), false, 'nothing left to cancel');
    runIds.push(record.runId);
  });

  test('Restore without a capture says why; reports and comparisons open', async () => {
    const { c } = await workflow();
    await vscode.commands.executeCommand('dynamoSnapshot.disconnect', 'local-demo');
    assert.strictEqual(await vscode.commands.executeCommand('dynamoSnapshot.restore', 'local-demo'), undefined);
    assert.strictEqual(c.activeRun(), undefined);
    const uri = await vscode.commands.executeCommand<string>('dynamoSnapshot.openRunReport', runIds[0]);
    assert.ok(uri && uri.startsWith('dynamo-snapshot-report:'), String(uri));
    const doc = await vscode.workspace.openTextDocument(vscode.Uri.parse(uri));
    assert.match(doc.getText(), /# Snapshot run .*: PASSED/);
    assert.match(doc.getText(), /restore time/);
    const cmp = await vscode.commands.executeCommand<string>('dynamoSnapshot.compareRuns', runIds[0], runIds[1]);
    const cdoc = await vscode.workspace.openTextDocument(vscode.Uri.parse(cmp!));
    assert.match(cdoc.getText(), /\| Source exit \| ✓ passed \| ✗ failed \|/);
  });

  test('palette steps carry one source across commands: start, capture, restore', async () => {
    const { c } = await workflow();
    const start = await vscode.commands.executeCommand<RunRecord>('dynamoSnapshot.startSource', 'local-demo');
    assert.strictEqual(start?.outcome, 'passed');
    assert.strictEqual(c.stageOf('local-demo'), 'started');
    const pgid = pgidOf(start);
    assert.ok(groupAlive(pgid), 'Start Source leaves the source running for the next command');
    const cap = await vscode.commands.executeCommand<RunRecord>('dynamoSnapshot.warmupAndCapture', 'local-demo');
    assert.strictEqual(cap?.outcome, 'passed', JSON.stringify(cap?.steps.map((s) => [s.name, s.state, s.verdict])));
    assert.strictEqual(cap.steps.find((s) => s.name === 'start')!.state, 'skipped');
    const res = await vscode.commands.executeCommand<RunRecord>('dynamoSnapshot.restore', 'local-demo');
    assert.strictEqual(res?.outcome, 'passed', JSON.stringify(res?.steps.map((s) => [s.name, s.state, s.verdict])));
    assert.ok(res.metrics.restoreMs! > 0);
    const restored = restoredPid(res);
    assert.ok(pidAlive(restored), 'Restore leaves the restored worker serving');
    assert.strictEqual(await vscode.commands.executeCommand('dynamoSnapshot.disconnect', 'local-demo'), true);
    for (let i = 0; i < 50 && pidAlive(restored); i++) await new Promise((r) => setTimeout(r, 100));
    assert.ok(!pidAlive(restored), 'Disconnect stops the restored worker');
  });
  test('a source started by Start Source survives a window reload; the next commands reattach to it', async () => {
    const { a, c } = await workflow();
    const start = await vscode.commands.executeCommand<RunRecord>('dynamoSnapshot.startSource', 'local-demo');
    assert.strictEqual(start?.outcome, 'passed', JSON.stringify(start?.steps.map((s) => [s.name, s.state, s.verdict])));
    const pgid = pgidOf(start);
    // The reload: deactivate runs the workflow's shutdown; a new window registers a new service.
    await c.shutdown();
    assert.ok(groupAlive(pgid), 'the source survives deactivate');
    const saved = a.ctx.extension.workspaceState.get<Record<string, { handle: { runId: string } }>>(SAVED_SOURCES_KEY);
    assert.strictEqual(saved?.['local-demo']?.handle.runId, start.runId, 'the source handle is kept in workspaceState');
    const Controller = c.constructor as new (ctx: WorkbenchApi['ctx']) => WorkflowController;
    const c2 = new Controller(a.ctx);
    a.ctx.services.set('workflow', c2);
    try {
      assert.strictEqual(c2.stageOf('local-demo'), 'idle');
      await vscode.commands.executeCommand('dynamoSnapshot.connect', 'local-demo');
      assert.strictEqual(c2.connectionState('local-demo')?.source, 'source running (reattached)');
      const cap = await vscode.commands.executeCommand<RunRecord>('dynamoSnapshot.warmupAndCapture', 'local-demo');
      assert.strictEqual(cap?.outcome, 'passed', JSON.stringify(cap?.steps.map((s) => [s.name, s.state, s.verdict])));
      assert.match(cap.steps.find((s) => s.name === 'warmup')!.verdict!, /every rank \(DP0, DP1\)/, 'markers from before the reload still count');
      assert.ok(!groupAlive(pgid) || cap.steps.find((s) => s.name === 'sourceExit')!.state === 'passed');
      const res = await vscode.commands.executeCommand<RunRecord>('dynamoSnapshot.restore', 'local-demo');
      assert.strictEqual(res?.outcome, 'passed', JSON.stringify(res?.steps.map((s) => [s.name, s.state, s.verdict])));
      const restored = restoredPid(res);
      assert.strictEqual(await vscode.commands.executeCommand('dynamoSnapshot.disconnect', 'local-demo'), true);
      for (let i = 0; i < 50 && pidAlive(restored); i++) await new Promise((r) => setTimeout(r, 100));
      assert.ok(!pidAlive(restored), 'Disconnect stops the reattached worker');
      assert.strictEqual(a.ctx.extension.workspaceState.get<Record<string, unknown>>(SAVED_SOURCES_KEY)?.['local-demo'], undefined, 'nothing left to reattach');
    } finally {
      await c2.shutdown();
      a.ctx.services.set('workflow', c);
    }
  });
});

/**
 * The views during a real local-demo run (the stand-in engine through the local transport): the
 * Ranks view has one node per rank with that rank's markers, a rank log document grows while the
 * run goes, the merged log has every line of every rank exactly once, Save Logs… writes the whole
 * logs, and the Lifecycle panel receives the run's events and draws a lane per rank.
 */
import * as assert from 'assert';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as vscode from 'vscode';
import { stripAnsi } from '../../src/core/views/ansi';
import { parseMergedLine } from '../../src/core/views/format';
import type { RunEvent } from '../../src/core/workflow/types';
import { docFor, viewsService, waitFor } from './support';

suite('Views: a local-demo run seen live', () => {
  const events: RunEvent[] = [];
  let sub: vscode.Disposable | undefined;
  let runId = '';
  let grewWhileRunning: { before: number; after: number } | undefined;

  suiteSetup(async function () {
    this.timeout(240_000);
    const { a, v } = await viewsService();
    await vscode.workspace.getConfiguration('dynamoSnapshot').update('defaultWorker', 'local-demo', vscode.ConfigurationTarget.Workspace);
    await vscode.commands.executeCommand('dynamoSnapshot.ranks.focus');
    await vscode.commands.executeCommand('dynamoSnapshot.showLifecycle');
    await waitFor('the lifecycle panel to load', () => v.panel.lastRendered !== undefined, 30_000);
    sub = a.ctx.runEvents.event((e) => events.push(e));
    const done = vscode.commands.executeCommand('dynamoSnapshot.runSmokeTest');
    runId = await waitFor('run-started', () => events.find((e) => e.type === 'run-started')?.runId, 60_000);
    // Open DP0's log as soon as DP0 has said something, then watch it grow before the run ends.
    await waitFor('DP0 lines', () => events.some((e) => e.type === 'log-lines' && e.rank === 'DP0'), 60_000);
    const uri = await vscode.commands.executeCommand<vscode.Uri>('dynamoSnapshot.showRankLog', { runId, rank: 'DP0' });
    assert.ok(uri, 'Show Rank Log returns the document it opened');
    const before = docFor(uri).lineCount;
    const ended = () => events.some((e) => e.type === 'run-ended');
    // One probe decides both, so "grew" is only claimed if the run had not ended at that moment.
    const first = await waitFor('DP0 log document to grow', () => (docFor(uri).lineCount > before ? (ended() ? 'ended' : 'grew') : ended() ? 'ended' : undefined), 120_000);
    if (first === 'grew') grewWhileRunning = { before, after: docFor(uri).lineCount };
    await waitFor('run-ended', ended, 180_000);
    await done;
    const markerList = events.filter((e): e is Extract<RunEvent, { type: 'rank-marker' }> => e.type === 'rank-marker').map((e) => `${e.rank}:${e.phase}`);
    console.log(`[views] markers: ${markerList.join(' ')}`);
    console.log(`[views] run ${runId}: ${events.length} events; DP0 document ${grewWhileRunning ? `grew ${grewWhileRunning.before} → ${grewWhileRunning.after} lines while running` : 'did not grow before the end'}`);
  });

  suiteTeardown(async () => {
    sub?.dispose();
    await vscode.workspace.getConfiguration('dynamoSnapshot').update('defaultWorker', undefined, vscode.ConfigurationTarget.Workspace);
  });

  const linesByRank = () => {
    const m = new Map<string, string[]>();
    for (const e of events) if (e.type === 'log-lines') m.set(e.rank, [...(m.get(e.rank) ?? []), ...e.lines]);
    return m;
  };

  test('the Ranks view has one node per rank, each with that rank\'s lifecycle markers', async () => {
    const { v } = await viewsService();
    const byRank = linesByRank();
    const snapshot = await v.ranksSnapshot();
    const shown = snapshot.map((r) => r.rank);
    assert.deepStrictEqual([...shown].sort(), [...byRank.keys()].sort(), 'one node per rank that logged');
    assert.ok(shown.includes('DP0') && shown.includes('DP1'), `the demo's two data-parallel ranks are shown (got ${shown.join(', ')})`);
    for (const r of snapshot) {
      const expected = events.filter((e): e is Extract<RunEvent, { type: 'rank-marker' }> => e.type === 'rank-marker' && e.rank === r.rank).map((e) => e.phase);
      assert.deepStrictEqual(r.markers, expected, `markers of ${r.rank}`);
      assert.strictEqual(r.lines, byRank.get(r.rank)!.length, `line count of ${r.rank}`);
    }
    // As upstream does, the stand-in's main process logs the warm-up once for every data-parallel rank
    // and announces the engine-wide phases; the ranks' current phase follows them.
    const main = snapshot.find((x) => x.rank === 'main');
    assert.ok(main, 'the main process has a node');
    for (const phase of ['warmup', 'pause', 'ready', 'capture', 'restore', 'resume']) assert.ok(main.markers.includes(phase), `main shows ${phase} (has ${main.markers.join(', ')})`);
    const lastEngineWide = [...main.markers].reverse().find((p) => p !== 'load')!;
    assert.strictEqual(snapshot.find((x) => x.rank === 'DP0')!.phase, lastEngineWide, 'DP0\'s current phase follows the engine-wide markers');
    // The tree items themselves: rank context value (drives the inline Show Rank Log action), marker children.
    const items = await v.rankItems();
    assert.ok(items.every((i) => i.contextValue === 'rank'));
    const mainNode = (await v.ranks.getChildren()).find((n) => n.rank === 'main')!;
    const children = await v.ranks.getChildren(mainNode);
    const markerItems = children.map((c) => v.ranks.getTreeItem(c)).filter((i) => i.contextValue === 'rankMarker');
    assert.strictEqual(markerItems.length, main.markers.length);
    assert.ok(markerItems.length >= 6);
    assert.ok(markerItems.every((i) => /^\+\d+\.\d\d s/.test(String(i.description))), 'markers show their time since the run began');
  });

  test('a rank log document grows while the run goes and ends with every DP0 line', async () => {
    assert.ok(grewWhileRunning, 'the DP0 document gained lines before the run ended');
    const { v } = await viewsService();
    const uri = await vscode.commands.executeCommand<vscode.Uri>('dynamoSnapshot.showRankLog', { runId, rank: 'DP0' });
    const expected = linesByRank().get('DP0')!.map(stripAnsi);
    await waitFor('the DP0 document to catch up', () => docFor(uri).lineCount === expected.length);
    assert.deepStrictEqual(docFor(uri).getText().split('\n'), expected);
    assert.ok(v.docs.renders > 1);
  });

  test('the merged log has every line of every rank exactly once, in arrival order', async () => {
    const uri = await vscode.commands.executeCommand<vscode.Uri>('dynamoSnapshot.showMergedLog', { runId });
    const sent: string[] = [];
    for (const e of events) if (e.type === 'log-lines') for (const l of e.lines) sent.push(`${e.rank}\u0000${stripAnsi(l)}`);
    const doc = docFor(uri);
    await waitFor('the merged document to catch up', () => doc.lineCount === sent.length);
    const got = doc.getText().split('\n').map((l) => {
      const p = parseMergedLine(l);
      assert.ok(p, `merged line has a rank prefix: ${l}`);
      return `${p.rank}\u0000${p.text}`;
    });
    assert.deepStrictEqual(got, sent);
  });

  test('Save Logs… writes each rank\'s whole log and merged.log to the chosen folder', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dsw-save-'));
    try {
      const written = await vscode.commands.executeCommand<string[]>('dynamoSnapshot.saveLogs', dir, runId);
      assert.ok(written && written.length > 0);
      for (const [rank, lines] of linesByRank()) {
        const f = written.find((w) => path.basename(w) === `${rank}.log`);
        assert.ok(f, `${rank}.log written`);
        const onDisk = fs.readFileSync(f, 'utf8').split('\n').slice(0, -1).map(stripAnsi);
        assert.deepStrictEqual(onDisk, lines.map(stripAnsi), `${rank}.log holds the whole log`);
      }
      assert.ok(written.some((w) => path.basename(w) === 'merged.log'));
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  test('the Lifecycle panel received the run\'s events and drew a lane per rank', async () => {
    const { v } = await viewsService();
    const ranks = (await v.ranksSnapshot()).map((r) => r.rank);
    // Opening logs covered the panel, and a hidden panel is (rightly) not updated: bring it back
    // and wait for what it draws now.
    const model = v.panel.message().model!;
    const expectedSegments = model.lanes.reduce((n, l) => n + l.segments.length, 0) + model.steps.filter((s) => s.start !== undefined).length;
    const drawn = new Promise<void>((resolve) => {
      const d = v.panel.onDidRender((r) => {
        if (r.runId === runId && r.segments === expectedSegments) {
          d.dispose();
          resolve();
        }
      });
    });
    await vscode.commands.executeCommand('dynamoSnapshot.showLifecycle');
    await Promise.race([drawn, new Promise((_, reject) => setTimeout(() => reject(new Error(`the panel did not draw ${expectedSegments} segments (last: ${JSON.stringify(v.panelReceived().rendered)})`)), 30_000))]);
    const rendered = v.panelReceived().rendered!;
    assert.deepStrictEqual(rendered.lanes, ranks);
    const got = v.panelReceived();
    const mine = got.events.filter((e) => e.runId === runId);
    const markers = events.filter((e) => e.type === 'rank-marker');
    assert.strictEqual(mine.filter((e) => e.type === 'rank-marker').length, markers.length, 'every marker reached the panel');
    assert.strictEqual(mine.filter((e) => e.type === 'step').length, events.filter((e) => e.type === 'step').length, 'every step change reached the panel');
    assert.ok(mine.some((e) => e.type === 'run-started') && mine.some((e) => e.type === 'run-ended'));
    // Every marker is evidence in some segment of its rank's lane.
    for (const m of markers) {
      const lane = model.lanes.find((l) => l.rank === m.rank)!;
      assert.ok(lane.segments.some((seg) => seg.phase === m.phase && seg.lines.includes(stripAnsi(m.line))), `${m.rank} ${m.phase} is drawn with its line`);
    }
    assert.strictEqual(model.runId, runId);
    assert.ok(model.restoreMs !== undefined, 'the restore time is shown');
    assert.ok(model.steps.some((s) => s.state !== 'pending'), 'step states are in the model');
  });

  test('the Lifecycle view shows each step with its final state and its evidence as children', async () => {
    const { v } = await viewsService();
    const last = new Map<string, Extract<RunEvent, { type: 'step' }>['step']>();
    for (const e of events) if (e.type === 'step') last.set(e.step.name, e.step);
    const nodes = await v.lifecycle.getChildren();
    assert.ok(nodes.length >= last.size);
    for (const n of nodes) {
      if (n.kind !== 'step') continue;
      const step = last.get(n.name);
      const item = v.lifecycle.getTreeItem(n);
      assert.strictEqual(item.contextValue, `step:${step?.state ?? 'pending'}`, n.name);
      if (step?.verdict) assert.ok(String(item.description).includes(step.verdict), `${n.name} shows its verdict`);
      assert.strictEqual((await v.lifecycle.getChildren(n)).length, step?.evidence.length ?? 0, `${n.name} evidence children`);
    }
  });

  test('an older run\'s logs (only on disk, e.g. after a reload) open from its files, escapes stripped', async () => {
    const { a } = await viewsService();
    const old = `20200101-000000Z-old-${Date.now()}`;
    const dir = path.join(a.ctx.storageDir, 'logs', old);
    fs.mkdirSync(dir, { recursive: true });
    try {
      fs.writeFileSync(path.join(dir, 'DP0.log'), '\x1b[36m(EngineCore_DP0 pid=1)\x1b[0m old line 1\nold line 2\n');
      const uri = await vscode.commands.executeCommand<vscode.Uri>('dynamoSnapshot.showRankLog', { runId: old, rank: 'DP0' });
      assert.deepStrictEqual(docFor(uri).getText().split('\n'), ['(EngineCore_DP0 pid=1) old line 1', 'old line 2']);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  test('timestamps toggle re-renders open log documents with arrival times', async () => {
    const uri = await vscode.commands.executeCommand<vscode.Uri>('dynamoSnapshot.showRankLog', { runId, rank: 'DP0' });
    const plain = docFor(uri).lineAt(0).text;
    const on = await vscode.commands.executeCommand<boolean>('dynamoSnapshot.toggleLogTimestamps');
    try {
      assert.strictEqual(on, true);
      await waitFor('timestamps in the document', () => /^\d\d:\d\d:\d\d\.\d{3} /.test(docFor(uri).lineAt(0).text));
      assert.strictEqual(docFor(uri).lineAt(0).text.slice(13), plain);
    } finally {
      await vscode.commands.executeCommand('dynamoSnapshot.toggleLogTimestamps');
    }
    await waitFor('timestamps gone', () => docFor(uri).lineAt(0).text === plain);
  });
});

/**
 * The extension in a real VS Code extension host: it activates fast, every contributed command is
 * registered (and nothing is registered that is not contributed), its views exist, and a wrong
 * setting produces a message that names the setting.
 */
import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import * as vscode from 'vscode';
import { vscodeAtLeast } from '../../src/ui/compat';
import { api, EXTENSION_ID, waitFor } from './support';

interface Manifest {
  engines: { vscode: string };
  contributes: { commands: { command: string }[]; views: Record<string, { id: string }[]> };
}

function manifest(): Manifest {
  const ext = vscode.extensions.getExtension(EXTENSION_ID)!;
  return JSON.parse(fs.readFileSync(path.join(ext.extensionPath, 'package.json'), 'utf8')) as Manifest;
}

suite('Foundation: the extension in VS Code', () => {
  test('runs in a real extension host, on a VS Code engines.vscode admits, and activates fast', async () => {
    // Which VS Code each host runs is checked by scripts/run-integration.mjs (minimum 1.100.x, newest pinned).
    const floor = /\d+\.\d+/.exec(manifest().engines.vscode)![0];
    assert.ok(vscodeAtLeast(floor), `VS Code ${vscode.version} is older than engines.vscode ${manifest().engines.vscode}`);
    const a = await api();
    console.log(`[foundation] activate() took ${a.activationMs.toFixed(1)} ms in VS Code ${vscode.version} (${vscode.env.appHost})`);
    assert.ok(a.activationMs >= 0 && Number.isFinite(a.activationMs));
    assert.ok(a.ctx, 'activate returns the context object');
  });

  test('every contributed command is registered, and every registered command is contributed', async () => {
    await api();
    const contributed = new Set(manifest().contributes.commands.map((c) => c.command));
    const viewIds = Object.values(manifest().contributes.views).flat().map((v) => v.id);
    // VS Code itself registers `<viewId>.focus`, `.resetViewLocation`, … for each contributed view.
    const generated = (id: string) => viewIds.some((v) => id.startsWith(`${v}.`));
    const registered = new Set((await vscode.commands.getCommands(true)).filter((c) => c.startsWith('dynamoSnapshot.') && !generated(c)));
    const notRegistered = [...contributed].filter((c) => !registered.has(c));
    const notContributed = [...registered].filter((c) => !contributed.has(c));
    assert.deepStrictEqual(notRegistered, [], `contributed in package.json but not registered: ${notRegistered.join(', ')}`);
    assert.deepStrictEqual(notContributed, [], `registered but not contributed in package.json: ${notContributed.join(', ')}`);
  });

  test('the Workers, Ranks and Lifecycle views exist and can be shown', async () => {
    await api();
    for (const id of ['dynamoSnapshot.workers', 'dynamoSnapshot.ranks', 'dynamoSnapshot.lifecycle']) {
      await vscode.commands.executeCommand(`${id}.focus`);
    }
  });

  test('a wrong setting gives a message naming the setting and what is wrong', async () => {
    const a = await api();
    const cfg = vscode.workspace.getConfiguration('dynamoSnapshot');
    try {
      await cfg.update('runs.keep', -3, vscode.ConfigurationTarget.Workspace);
      await cfg.update('workers', [{ name: 'gpu-box', command: ['python3'], timeouts: { warmupSeconds: -1 } }], vscode.ConfigurationTarget.Workspace);
      const problems = await waitFor('setting problems', () => {
        const p = a.ctx.config.problems;
        return p.some((x) => x.setting === 'dynamoSnapshot.runs.keep') && p.some((x) => x.setting === 'dynamoSnapshot.workers') ? p : undefined;
      });
      const keep = problems.find((p) => p.setting === 'dynamoSnapshot.runs.keep')!;
      assert.match(keep.message, /-3/);
      const worker = problems.find((p) => p.setting === 'dynamoSnapshot.workers')!;
      assert.match(worker.message, /"gpu-box"/);
      assert.match(worker.message, /timeouts\.warmupSeconds/);
      assert.match(worker.message, /finite number of seconds greater than 0/);
      // The valid defaults still apply: one bad value never takes the extension down.
      assert.strictEqual(a.ctx.config.settings.general['runs.keep'], 50);
    } finally {
      await cfg.update('runs.keep', undefined, vscode.ConfigurationTarget.Workspace);
      await cfg.update('workers', undefined, vscode.ConfigurationTarget.Workspace);
    }
  });
});

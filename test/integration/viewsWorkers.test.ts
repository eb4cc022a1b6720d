/**
 * The Workers view in the host: the built-in local demo profile is listed (with a user profile
 * beside it), Add Local Demo Worker makes it the selected default, and Edit Worker Profiles opens
 * the settings JSON. After a run, a connected worker shows the agent's hello as children.
 */
import * as assert from 'assert';
import * as vscode from 'vscode';
import { viewsService, waitFor } from './support';

suite('Views: workers', () => {
  const cfg = () => vscode.workspace.getConfiguration('dynamoSnapshot');

  teardown(async () => {
    await cfg().update('workers', undefined, vscode.ConfigurationTarget.Workspace);
    await cfg().update('defaultWorker', undefined, vscode.ConfigurationTarget.Workspace);
  });

  test('lists the built-in workers (local demo, real lifecycle) and configured profiles with context values for their actions', async () => {
    const { v } = await viewsService();
    await cfg().update('workers', [{ name: 'gpu-box', transport: { kind: 'ssh', host: 'gpu-box' }, command: ['python3', '-m', 'dynamo.vllm'] }], vscode.ConfigurationTarget.Workspace);
    const names = await waitFor('both profiles', async () => {
      const n = (await v.workers.getChildren()).map((x) => (x.kind === 'worker' ? x.name : ''));
      return n.includes('gpu-box') && n.includes('local-demo') ? n : undefined;
    });
    assert.deepStrictEqual([...names].sort(), ['gpu-box', 'local-demo', 'real-lifecycle']);
    const items = (await v.workers.getChildren()).map((n) => v.workers.getTreeItem(n));
    const box = items.find((i) => i.label === 'gpu-box')!;
    assert.match(String(box.contextValue), /^worker:(dis)?connected$/);
    assert.match(String(box.description), /ssh gpu-box · vllm/);
    const demo = items.find((i) => i.label === 'local-demo')!;
    assert.match(String(demo.description), /built-in/);
    assert.match(String(items.find((i) => i.label === 'real-lifecycle')!.description), /built-in/);
  });

  test('Add Local Demo Worker makes local-demo the selected default worker', async () => {
    const { v } = await viewsService();
    await cfg().update('defaultWorker', 'gpu-box', vscode.ConfigurationTarget.Workspace);
    const name = await vscode.commands.executeCommand<string>('dynamoSnapshot.addDemoWorker');
    assert.strictEqual(name, 'local-demo');
    assert.strictEqual(cfg().get('defaultWorker'), 'local-demo');
    const demo = v.workerSource.list().find((w) => w.name === 'local-demo')!;
    assert.strictEqual(demo.selected, true);
  });

  test('Edit Worker Profiles opens the settings JSON', async () => {
    await vscode.commands.executeCommand('dynamoSnapshot.editWorker');
    const ed = await waitFor('a settings.json editor', () => {
      const e = vscode.window.activeTextEditor;
      return e && /settings\.json$/.test(e.document.uri.path) ? e : undefined;
    }, 15_000);
    // The editor is placed at (or given) the setting to edit.
    await waitFor('the dynamoSnapshot.workers key', () => ed.document.getText().includes('dynamoSnapshot.workers'), 10_000);
    // Leave the file as it was (the reveal may have inserted the key): revert, then close. Revert that
    // document, not whatever is active; the settings writes in teardown refuse a dirty settings.json.
    await vscode.window.showTextDocument(ed.document);
    await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');
    await waitFor('settings.json without unsaved changes', () => !ed.document.isDirty, 10_000);
  });

  test('a worker that ran shows the agent\'s hello: host, GPUs, driver, tool versions', async function () {
    const { v } = await viewsService();
    const demo = v.workerSource.list().find((w) => w.name === 'local-demo')!;
    if (!demo.hello) {
      // Only after a run in this window (the local-demo suite runs one first).
      this.skip();
    }
    const node = (await v.workers.getChildren()).find((n) => n.kind === 'worker' && n.name === 'local-demo')!;
    const item = v.workers.getTreeItem(node);
    assert.strictEqual(item.contextValue, 'worker:connected');
    const labels = (await v.workers.getChildren(node)).map((c) => String(v.workers.getTreeItem(c).label));
    for (const l of ['host', 'driver', 'cuda-checkpoint', 'CRIU', 'python', 'agent']) assert.ok(labels.includes(l), `hello row ${l} (rows: ${labels.join(', ')})`);
  });
});

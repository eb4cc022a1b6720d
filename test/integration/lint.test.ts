/**
 * Snapshot lint inside the real VS Code extension host: the language client starts after
 * activation, a diagnostic appears on a fixture, the quick fix applies and the diagnostic goes away,
 * `# noqa` silences a line, "Disable … for this line" works, and source.fixAll.dynamoSnapshot
 * rewrites the safe exits only. Fixtures are edited in memory and reverted, never saved.
 */
import * as assert from 'assert';
import * as path from 'path';
import * as vscode from 'vscode';
import { EXTENSION_ID, waitFor } from './support';

function fixture(name: string): vscode.Uri {
  const folder = vscode.workspace.workspaceFolders?.[0];
  assert.ok(folder, 'the test workspace is open');
  return vscode.Uri.file(path.join(folder.uri.fsPath, 'lint', name));
}

function ours(uri: vscode.Uri): vscode.Diagnostic[] {
  return vscode.languages.getDiagnostics(uri).filter((d) => d.source === 'dynamo-snapshot');
}

function codeOf(d: vscode.Diagnostic): string {
  return typeof d.code === 'object' ? String(d.code.value) : String(d.code);
}

/** Diagnostics for `uri` once they match `lines` (zero-based start lines). */
async function diagnosticsOn(uri: vscode.Uri, lines: number[]): Promise<vscode.Diagnostic[]> {
  return waitFor(`dynamo-snapshot diagnostics on lines ${lines.join(',')} of ${path.basename(uri.fsPath)}`, () => {
    const d = ours(uri);
    const got = d.map((x) => x.range.start.line).sort((a, b) => a - b);
    return JSON.stringify(got) === JSON.stringify(lines) ? d : undefined;
  });
}

async function open(name: string): Promise<vscode.TextEditor> {
  const doc = await vscode.workspace.openTextDocument(fixture(name));
  return vscode.window.showTextDocument(doc);
}

async function actions(uri: vscode.Uri, range: vscode.Range, kind: string): Promise<vscode.CodeAction[]> {
  return (await vscode.commands.executeCommand<vscode.CodeAction[]>('vscode.executeCodeActionProvider', uri, range, kind)) ?? [];
}

async function revert(editor: vscode.TextEditor): Promise<void> {
  await vscode.window.showTextDocument(editor.document);
  await vscode.commands.executeCommand('workbench.action.files.revert');
  assert.equal(editor.document.isDirty, false);
}

suite('Snapshot lint in VS Code', () => {
  suiteSetup(async () => {
    const ext = vscode.extensions.getExtension(EXTENSION_ID);
    assert.ok(ext);
    await ext.activate();
  });

  test('a diagnostic appears on the fixture, with code, documentation link and severity', async () => {
    const editor = await open('snapshot.py');
    const [d] = await diagnosticsOn(editor.document.uri, [9]);
    assert.equal(codeOf(d!), 'SNAP001');
    assert.equal(d!.severity, vscode.DiagnosticSeverity.Error);
    assert.ok(typeof d!.code === 'object' && d!.code.target.toString().endsWith('/docs/rules/SNAP001.md'), 'codeDescription links the rule page');
    assert.match(d!.message, /unwinds into engine teardown/);
  });

  test('the quick fix applies and the diagnostic goes away', async () => {
    const editor = await open('snapshot.py');
    const uri = editor.document.uri;
    const [d] = await diagnosticsOn(uri, [9]);
    const offered = await actions(uri, d!.range, vscode.CodeActionKind.QuickFix.value);
    const titles = offered.map((a) => a.title);
    assert.deepEqual(titles.slice(0, 3), ['Exit with os._exit', 'Disable SNAP001 for this line', 'Disable SNAP001 for this file']);
    const fix = offered[0]!;
    assert.equal(fix.isPreferred, true);
    try {
      assert.ok(await vscode.workspace.applyEdit(fix.edit!), 'the edit applies');
      await diagnosticsOn(uri, []);
      const text = editor.document.getText();
      assert.match(text, /\n {8}sys\.stdout\.flush\(\); sys\.stderr\.flush\(\)\n {8}os\._exit\(0\)\n/);
      assert.match(text, /^"""[^\n]*"""\nimport logging\nimport os\nimport sys\n/);
    } finally {
      await revert(editor);
    }
    await diagnosticsOn(uri, [9]);
  });

  test('# noqa silences its line only, and "Disable SNAP001 for this line" silences another', async () => {
    const editor = await open('noqa_snapshot.py');
    const uri = editor.document.uri;
    const [d] = await diagnosticsOn(uri, [8]);
    const disable = (await actions(uri, d!.range, vscode.CodeActionKind.QuickFix.value)).find((a) => a.title === 'Disable SNAP001 for this line');
    assert.ok(disable, 'the disable action is offered');
    try {
      assert.ok(await vscode.workspace.applyEdit(disable.edit!));
      await diagnosticsOn(uri, []);
      assert.equal(editor.document.lineAt(8).text, '        sys.exit(0)  # noqa: SNAP001');
    } finally {
      await revert(editor);
    }
  });

  test('fix-all (source.fixAll.dynamoSnapshot) rewrites the safe exits and leaves the unsafe one', async () => {
    const editor = await open('fixall_snapshot.py');
    const uri = editor.document.uri;
    await diagnosticsOn(uri, [8, 10, 11]);
    const all = await actions(uri, new vscode.Range(0, 0, 0, 0), 'source.fixAll.dynamoSnapshot');
    assert.equal(all.length, 1, `fix-all actions: ${all.map((a) => a.title).join(', ')}`);
    try {
      assert.ok(await vscode.workspace.applyEdit(all[0]!.edit!));
      const left = await waitFor('one diagnostic left', () => {
        const d = ours(uri);
        return d.length === 1 ? d : undefined;
      });
      assert.match(editor.document.lineAt(left[0]!.range.start.line).text, /sys\.exit\(f"captured/);
      const text = editor.document.getText();
      assert.equal(text.match(/import os/g)?.length, 1);
      assert.equal(text.match(/os\._exit\(0\)/g)?.length, 2);
    } finally {
      await revert(editor);
    }
  });

  test('restarting the server brings diagnostics back', async () => {
    const editor = await open('snapshot.py');
    await vscode.commands.executeCommand('dynamoSnapshot.lint.restartServer');
    await diagnosticsOn(editor.document.uri, [9]);
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });
});

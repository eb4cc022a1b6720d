/**
 * APIs newer than engines.vscode, behind a version check (src/ui/compat.ts). The suite runs on the
 * minimum host (1.100.3: the old path) and the newest (1.139.1: the new path); each test checks that
 * the path taken matches what this VS Code really offers, so a wrong release number in API_SINCE fails
 * on one of the two hosts. The UI tier checks what the user sees in each.
 */
import * as assert from 'assert';
import * as vscode from 'vscode';
import { API_SINCE, vscodeAtLeast, withPrompt } from '../../src/ui/compat';

suite('Compat: newer VS Code APIs behind a version check', () => {
  test('version comparison: major.minor, pre-release suffixes ignored', () => {
    assert.ok(vscodeAtLeast('1.100', '1.100.3'));
    assert.ok(vscodeAtLeast('1.108', '1.139.1'));
    assert.ok(vscodeAtLeast('1.108', '1.108.0-insider'));
    assert.ok(vscodeAtLeast('1.108', '2.0.0'));
    assert.ok(!vscodeAtLeast('1.108', '1.107.9'));
    assert.ok(!vscodeAtLeast('1.108', '1.100.3'));
  });

  test(`quick pick prompt (VS Code ${API_SINCE.quickPickPrompt}): its own line where VS Code has it, else in the placeholder`, () => {
    const qp = vscode.window.createQuickPick();
    try {
      // Where VS Code implements QuickPick.prompt, its extension-host object has the accessor.
      const hasPrompt = 'prompt' in qp;
      const newPath = vscodeAtLeast(API_SINCE.quickPickPrompt);
      console.log(`[compat] VS Code ${vscode.version}: QuickPick.prompt ${hasPrompt ? 'present' : 'absent'}, ${newPath ? 'prompt option' : 'placeholder'} path`);
      assert.strictEqual(hasPrompt, newPath, `VS Code ${vscode.version} ${hasPrompt ? 'has' : 'lacks'} QuickPick.prompt, but API_SINCE.quickPickPrompt is ${API_SINCE.quickPickPrompt}`);
      const o = withPrompt({ title: 'Show Merged Log', placeHolder: 'Which run?' }, 'The current run first.');
      if (newPath) assert.deepStrictEqual(o, { title: 'Show Merged Log', placeHolder: 'Which run?', prompt: 'The current run first.' });
      else assert.deepStrictEqual(o, { title: 'Show Merged Log', placeHolder: 'Which run? The current run first.' });
    } finally {
      qp.dispose();
    }
  });
});

/**
 * Entry point VS Code calls inside the extension host (`extensionTestsPath`): runs every bundled
 * `*.test.js` beside this file with mocha (tdd ui). DSW_INTEGRATION_GREP narrows the run.
 */
import Mocha from 'mocha';
import fs from 'node:fs';
import path from 'node:path';
import * as vscode from 'vscode';

export async function run(): Promise<void> {
  console.log(`vscode.version=${vscode.version} appHost=${vscode.env.appHost} node=${process.version} remote=${vscode.env.remoteName ?? 'none'}`);
  const mocha = new Mocha({ ui: 'tdd', color: false, timeout: 180_000 });
  if (process.env.DSW_INTEGRATION_GREP) mocha.grep(process.env.DSW_INTEGRATION_GREP);
  const files = fs.readdirSync(__dirname, { recursive: true }).map(String).filter((f) => f.endsWith('.test.js')).sort();
  for (const f of files) mocha.addFile(path.join(__dirname, f));
  await new Promise<void>((resolve, reject) => {
    mocha.run((failures) => (failures > 0 ? reject(new Error(`${failures} integration test(s) failed`)) : resolve()));
  });
}

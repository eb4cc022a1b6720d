// Runs test/integration/** (bundled to out/test/integration) inside a real VS Code extension host
// through @vscode/test-electron. With internet, test-electron downloads VS Code 1.100.3 desktop; here
// and in CI, VSCODE_TEST_EXECUTABLE (or, when unset, the installed offline host) launches code-server
// 1.100.3 in headless Chromium instead. One suite; only the VS Code that runs it differs.
import { runTests } from '@vscode/test-electron';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const offlineHost = path.join(root, 'test/vscode-host/code-server-test-host.mjs');
let executable = process.env.VSCODE_TEST_EXECUTABLE;
if (!executable && fs.existsSync(path.join(root, 'test/vscode-host/node_modules/code-server'))) executable = offlineHost;

// A scratch copy of the fixture workspace, so tests may write settings and files freely.
const workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'dsw-ws-'));
fs.cpSync(path.join(root, 'test/fixtures/workspace'), workspace, { recursive: true });

const options = {
  version: '1.100.3',
  extensionDevelopmentPath: root,
  extensionTestsPath: path.join(root, 'out/test/integration/index.js'),
  launchArgs: [workspace, '--disable-extensions'],
  extensionTestsEnv: { DSW_TEST_WORKSPACE: workspace, DSW_REPO_ROOT: root },
};
if (executable) options.vscodeExecutablePath = executable;
console.log(`[integration] VS Code: ${executable ? `offline host ${path.relative(root, executable)}` : 'desktop 1.100.3 via @vscode/test-electron'}; workspace ${workspace}`);
try {
  await runTests(options);
  process.exitCode = 0;
} catch (e) {
  console.error(`[integration] ${e instanceof Error ? e.message : e}`);
  process.exitCode = 1;
} finally {
  fs.rmSync(workspace, { recursive: true, force: true });
}

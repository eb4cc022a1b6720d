// Runs test/integration/** (bundled to out/test/integration) inside a real VS Code extension host
// through @vscode/test-electron, once per host (test/vscode-host/hosts.mjs): the minimum VS Code that
// engines.vscode declares, and the newest. One suite; only the VS Code that runs it differs.
// Per host, the VS Code is VSCODE_TEST_EXECUTABLE (minimum) / VSCODE_TEST_EXECUTABLE_NEWEST (newest) when
// set, else the installed offline host (code-server in headless Chromium), else, online, the desktop
// build test-electron downloads. DSW_TEST_HOSTS=minimum (or newest) runs one host.
// Each host prints `integration[<host> <vscode.version>]: N passed, N failed, N skipped`; the last line,
// `integration: …`, sums them (scripts/run-tests.mjs reads it). A host whose extension host reports
// no vscode.version, or another version than the host pins, fails.
import { runTests } from '@vscode/test-electron';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { selectedHosts } from '../test/vscode-host/hosts.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const manifest = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
// engines.vscode "^1.100.0" → the minimum host must run 1.100.x.
const floor = /(\d+)\.(\d+)/.exec(manifest.engines.vscode);
const testElectron = JSON.parse(fs.readFileSync(path.join(root, 'node_modules/@vscode/test-electron/package.json'), 'utf8')).version;
console.log(`[integration] @vscode/test-electron ${testElectron} on Node ${process.version}; engines.vscode ${manifest.engines.vscode}`);

/** Output of one host's run, copied to our stdout and kept for the counts and the version line. */
function tee(sink) {
  const chunks = [];
  const s = new PassThrough();
  s.on('data', (d) => { chunks.push(d); sink.write(d); });
  return { stream: s, text: () => Buffer.concat(chunks).toString('utf8') };
}

/** mocha's spec reporter ends with `N passing`, `N failing`, `N pending`. */
function mochaCounts(out) {
  const n = (k) => Number((new RegExp(`^\\s*(\\d+) ${k}\\b`, 'm').exec(out) ?? [])[1] ?? 0);
  return { passed: n('passing'), failed: n('failing'), skipped: n('pending') };
}

async function runHost(host) {
  const override = process.env[host.executableEnv];
  const executable = override || (host.installed ? host.launcher : undefined);
  const what = override ? `${host.executableEnv}=${override}` : executable ? `offline host ${path.relative(root, executable)} (code-server ${host.codeServerVersion})` : `desktop ${host.download} via @vscode/test-electron (the offline host is not installed: bash test/vscode-host/install.sh ${host.name})`;
  // A scratch copy of the fixture workspace per host, so tests may write settings and files freely; and
  // per host its own user data and extensions (1.139 migrates state that 1.100 would then misread).
  const workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'dsw-ws-'));
  fs.cpSync(path.join(root, 'test/fixtures/workspace'), workspace, { recursive: true });
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), `dsw-vsc-${host.name}-`));
  console.log(`\n[integration] ${host.name} host: ${what}; workspace ${workspace}`);
  const out = tee(process.stdout);
  const err = tee(process.stderr);
  const options = {
    version: host.download,
    extensionDevelopmentPath: root,
    extensionTestsPath: path.join(root, 'out/test/integration/index.js'),
    launchArgs: [workspace, '--disable-extensions', `--user-data-dir=${path.join(profile, 'user-data')}`, `--extensions-dir=${path.join(profile, 'extensions')}`],
    extensionTestsEnv: { DSW_TEST_WORKSPACE: workspace, DSW_REPO_ROOT: root },
    stdout: out.stream,
    stderr: err.stream,
  };
  if (executable) options.vscodeExecutablePath = executable;
  let exitOk = true;
  try {
    await runTests(options);
  } catch (e) {
    exitOk = false;
    console.error(`[integration] ${host.name} host: ${e instanceof Error ? e.message : e}`);
  } finally {
    fs.rmSync(workspace, { recursive: true, force: true });
    fs.rmSync(profile, { recursive: true, force: true });
  }
  const text = out.text() + err.text();
  const counts = mochaCounts(text);
  const version = (/vscode\.version=(\S+)/.exec(text) ?? [])[1];
  const problems = [];
  if (!version) problems.push('the extension host reported no vscode.version');
  else if (host.name === 'minimum' && floor && !version.startsWith(`${floor[1]}.${floor[2]}.`)) {
    problems.push(`it ran VS Code ${version}, but engines.vscode declares ${manifest.engines.vscode}: the minimum host must run ${floor[1]}.${floor[2]}.x`);
  } else if (executable && path.resolve(executable) === host.launcher && host.vscodeVersion && version !== host.vscodeVersion) {
    problems.push(`it ran VS Code ${version}, but the ${host.name} host pins ${host.vscodeVersion}`);
  }
  for (const p of problems) console.error(`[integration] ${host.name} host: ${p}`);
  // A run that exited non-zero, or broke an expectation, without a failing test counts one failure.
  if ((!exitOk || problems.length) && counts.failed === 0) counts.failed = 1;
  return { host: host.name, version: version ?? 'unknown', ...counts };
}

const results = [];
let hosts;
try {
  hosts = selectedHosts();
} catch (e) {
  console.error(`[integration] ${e.message}`);
  console.log('integration: 0 passed, 1 failed, 0 skipped');
  process.exit(1);
}
for (const host of hosts) results.push(await runHost(host));

console.log('');
for (const r of results) console.log(`integration[${r.host} ${r.version}]: ${r.passed} passed, ${r.failed} failed, ${r.skipped} skipped`);
const sum = (k) => results.reduce((a, r) => a + r[k], 0);
console.log(`integration: ${sum('passed')} passed, ${sum('failed')} failed, ${sum('skipped')} skipped`);
process.exitCode = sum('failed') > 0 ? 1 : 0;

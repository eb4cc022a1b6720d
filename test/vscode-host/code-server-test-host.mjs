#!/usr/bin/env node
// Stand-in for the VS Code executable that @vscode/test-electron spawns (its `vscodeExecutablePath`).
// It accepts the desktop command line test-electron passes (--extensionDevelopmentPath=,
// --extensionTestsPath=, --user-data-dir=, --extensions-dir=, a folder), starts code-server (a real
// VS Code server build from npm) on 127.0.0.1, opens its workbench in Debian's headless Chromium
// through playwright-core, runs the tests in code-server's Node extension host, streams their output
// and exits with the tests' exit code, as desktop VS Code would.
// Run directly, it is the minimum host (code-server 4.100.3 = VS Code 1.100.3 in this folder, on the
// Node that runs it). newest/code-server-test-host runs it on Node 24 with --host-dir=newest
// (code-server 4.139.1 = VS Code 1.139.1). code-server runs on the Node that runs this launcher, the
// Node its native modules were built for.
// Recipe and measurements: shared/reference/vscode-test-host.md §4, §8 and Appendix A.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import net from 'node:net';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { format } from 'node:util';

const opt = { dev: [], folder: undefined, hostDir: path.dirname(fileURLToPath(import.meta.url)) };
// --host-dir= is ours (which host folder's code-server and playwright-core); everything else goes to code-server.
const argv = process.argv.slice(2).filter((a) => (a.startsWith('--host-dir=') ? ((opt.hostDir = path.resolve(a.slice(11))), false) : true));
for (const a of argv) {
  const m = /^--([^=]+)=(.*)$/.exec(a);
  if (m) {
    const [, k, v] = m;
    if (k === 'extensionDevelopmentPath') opt.dev.push(path.resolve(v));
    else if (k === 'extensionTestsPath') opt.tests = path.resolve(v);
    else if (k === 'user-data-dir') opt.userDataDir = path.resolve(v);
    else if (k === 'extensions-dir') opt.extensionsDir = path.resolve(v);
    // desktop-only flags (--no-sandbox, --disable-gpu-sandbox, --disable-updates, ...) do not apply
  } else if (!a.startsWith('-') && !opt.folder) opt.folder = path.resolve(a);
}
const require = createRequire(path.join(opt.hostDir, 'package.json'));
const codeServer = process.env.CODE_SERVER_BIN || path.join(path.dirname(require.resolve('code-server/package.json')), 'out/node/entry.js');
const chromiumPath = process.env.CHROMIUM_PATH || spawnSync('sh', ['-c', 'command -v chromium'], { encoding: 'utf8' }).stdout.trim();
const timeoutMs = Number(process.env.CODE_SERVER_TEST_TIMEOUT_MS || 10 * 60 * 1000);

// Plain CLI uses (--install-extension x.vsix, --list-extensions, --version) pass straight through.
if (!opt.tests) {
  const r = spawnSync(process.execPath, [codeServer, ...argv], { stdio: 'inherit' });
  process.exit(r.status ?? 1);
}

const { chromium } = require('playwright-core');
const freePort = () => new Promise((r) => { const s = net.createServer(); s.listen(0, '127.0.0.1', () => { const p = s.address().port; s.close(() => r(p)); }); });
const port = await freePort();
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'cs-test-'));
// code-server puts a unix socket in the user data dir; socket paths over ~107 bytes break it.
const userDataDir = opt.userDataDir && path.join(opt.userDataDir, 'code-server-ipc.sock').length < 100 ? opt.userDataDir : path.join(tmp, 'user-data');
const extensionsDir = opt.extensionsDir || path.join(tmp, 'extensions');
fs.mkdirSync(path.join(userDataDir, 'User'), { recursive: true });
const settingsFile = path.join(userDataDir, 'User', 'settings.json');
if (!fs.existsSync(settingsFile)) fs.writeFileSync(settingsFile, JSON.stringify({
  'extensions.autoCheckUpdates': false, 'extensions.autoUpdate': false, 'telemetry.telemetryLevel': 'off',
  'update.mode': 'none', 'workbench.startupEditor': 'none', 'workbench.tips.enabled': false,
  // VS Code 1.104+: no chat, agent host or Copilot UI in a test window (older releases ignore the key).
  'chat.disableAIFeatures': true,
}, null, 2));
// XDG dirs keep code-server's config.yaml out of the real home; EXTENSIONS_GALLERY='{}' turns off the
// default gallery (unreachable offline).
const env = { EXTENSIONS_GALLERY: '{}', VSCODE_OPTIONS: 'enable-smoke-test-driver', ...process.env, XDG_CONFIG_HOME: path.join(tmp, 'config'), XDG_DATA_HOME: path.join(tmp, 'data') };
const server = spawn(process.execPath, [codeServer,
  '--auth', 'none', '--bind-addr', `127.0.0.1:${port}`,
  '--disable-telemetry', '--disable-update-check', '--disable-workspace-trust', '--disable-getting-started-override',
  '--user-data-dir', userDataDir, '--extensions-dir', extensionsDir, '--ignore-last-opened',
], { env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
let serverLog = '';
server.stdout.on('data', (d) => { serverLog += d; });
server.stderr.on('data', (d) => { serverLog += d; });
let browser;
let finishing = false;
const finish = async (code) => {
  if (finishing) return;
  finishing = true;
  try { await browser?.close(); } catch { /* already gone */ }
  try { process.kill(-server.pid, 'SIGTERM'); } catch { /* already gone */ }
  fs.rmSync(tmp, { recursive: true, force: true });
  if (code !== 0 && process.env.CODE_SERVER_TEST_VERBOSE !== '0') process.stderr.write('--- code-server log (tail) ---\n' + serverLog.slice(-4000) + '\n');
  process.exit(code);
};
process.on('SIGINT', () => finish(130));
process.on('SIGTERM', () => finish(143));
for (let i = 0; !/HTTP server listening/.test(serverLog); i++) {
  if (i > 600 || server.exitCode !== null) { console.error('code-server did not start'); await finish(1); }
  await new Promise((r) => setTimeout(r, 100));
}
browser = await chromium.launch({
  executablePath: chromiumPath, headless: true,
  args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
    '--disable-component-update', '--disable-sync', '--disable-dev-shm-usage'],
});
const page = await (await browser.newContext({ viewport: { width: 1400, height: 900 } })).newPage();
page.on('pageerror', (e) => console.error('[workbench page error]', String(e)));
if (process.env.CODE_SERVER_TEST_VERBOSE) page.on('console', (m) => console.log('[browser console]', m.type(), m.text()));
page.on('crash', () => { console.error('[workbench crashed]'); void finish(1); });
const counts = { passing: 0, failing: 0, pending: 0 };
let resolveExit;
const exited = new Promise((r) => { resolveExit = r; });
await page.exposeFunction('codeAutomationLog', (type, args) => {
  const line = format(...args);
  // The workbench forwards its own log lines too; keep the output to what the extension host prints.
  if (/ENOTFOUND|Resolving connection token|Resolved connection token|Creating a socket|Updating additional builtin|\[Service Worker\]|ChatSessionStore|Ignoring fetching additional builtin extensions|^\[(ChatModelSelection|AgentHost:remote|AccountPolicyGate|reconnection-grace-time)\]/.test(line) && !process.env.CODE_SERVER_TEST_VERBOSE) return;
  (console[type] || console.log)(...args);
  const m = /^\s*(\d+) (passing|failing|pending)\b/.exec(line);
  if (m) counts[m[2]] = Number(m[1]);
});
await page.exposeFunction('codeAutomationExit', (code) => resolveExit(code));
const remote = (p) => `vscode-remote://127.0.0.1:${port}${p.split(path.sep).join('/')}`;
const payload = [...opt.dev.map((d) => ['extensionDevelopmentPath', remote(d)]), ['extensionTestsPath', remote(opt.tests)], ['skipWelcome', 'true']];
let url = `http://127.0.0.1:${port}/?payload=${encodeURIComponent(JSON.stringify(payload))}`;
if (opt.folder) url += (opt.folder.endsWith('.code-workspace') ? '&workspace=' : '&folder=') + encodeURIComponent(opt.folder);
else url += '&ew=true';
await page.goto(url);
const code = await Promise.race([exited, new Promise((r) => setTimeout(() => { console.error(`tests did not finish within ${timeoutMs} ms`); r('timeout'); }, timeoutMs))]);
if (code !== 0 && process.env.CODE_SERVER_TEST_SCREENSHOT) await page.screenshot({ path: process.env.CODE_SERVER_TEST_SCREENSHOT }).catch(() => {});
// A closing line CI log readers understand (mocha's "N passing" is not one).
console.log(`vscode: ${counts.passing} passed, ${counts.failing} failed` + (counts.pending ? `, ${counts.pending} skipped` : ''));
await finish(typeof code === 'number' ? code : 1);

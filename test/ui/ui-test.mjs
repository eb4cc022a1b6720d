#!/usr/bin/env node
// UI-level test in an offline VS Code host (shared/reference/vscode-test-host.md §9, Appendix C):
// code-server (test/vscode-host/hosts.mjs: minimum = VS Code 1.100.3, newest = 1.139.1) with this
// extension in development mode, driven by Debian's headless Chromium through playwright-core, the way
// a person would: command palette → "Dynamo Snapshot: Run Snapshot Smoke Test" → the Ranks view fills
// with one row per rank → "Show Lifecycle" → the panel draws the timeline; hovering a segment shows its
// evidence, and the keyboard reaches the segments; the Snapshots view shows a real kube-apiserver's
// PodSnapshots (test/ui/snapshotCluster.main.ts) with their content, SnapshotJob and restored pods,
// opens an object's YAML and compares two snapshots. Screenshots go to test-results/ui/ (minimum) or
// test-results/ui/<host>/.
//   node test/ui/ui-test.mjs [--host minimum|newest] [--shots DIR] [--keep-open]
// Prints `ui: N passed, N failed` last (scripts/run-tests.mjs reads it).
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import net from 'node:net';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { HOSTS } from '../vscode-host/hosts.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const argv = process.argv.slice(2);
const arg = (name, dflt) => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 && argv[i + 1] && !argv[i + 1].startsWith('--') ? argv[i + 1] : dflt;
};
const host = HOSTS.find((h) => h.name === arg('host', 'minimum'));
if (!host) {
  console.error(`ui: unknown --host (hosts: ${HOSTS.map((h) => h.name).join(', ')})`);
  process.exit(2);
}
const require = createRequire(path.join(host.dir, 'package.json'));
const shotDir = path.resolve(arg('shots', path.join(root, 'test-results/ui', host.name === 'minimum' ? '' : host.name)));
fs.mkdirSync(shotDir, { recursive: true });

let codeServer;
let chromiumMod;
try {
  codeServer = path.join(path.dirname(require.resolve('code-server/package.json')), 'out/node/entry.js');
  chromiumMod = require('playwright-core').chromium;
} catch (e) {
  console.log(`ui: skipped — the ${host.name} host is not installed in ${path.relative(root, host.dir)} (${e.message.split('\n')[0]})`);
  console.log('ui: 0 passed, 0 failed, 1 skipped');
  process.exit(0);
}
const chromiumPath = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
if (!fs.existsSync(path.join(root, 'dist/extension.js'))) {
  console.error('ui: dist/extension.js is missing; run `npm run build` first');
  process.exit(1);
}

// A real API server with snapshot objects for the Snapshots view (or the reason it cannot run here).
const clusterMain = path.join(root, 'out/test/ui/snapshotCluster.main.js');
let cluster;
let clusterInfo = { skip: 'out/test/ui/snapshotCluster.main.js is missing; run `node scripts/build.mjs`' };
if (fs.existsSync(clusterMain)) {
  cluster = spawn(process.execPath, [clusterMain], { stdio: ['pipe', 'pipe', 'pipe'] });
  let clusterErr = '';
  cluster.stderr.on('data', (d) => { clusterErr += d; });
  clusterInfo = await new Promise((resolve) => {
    let out = '';
    const t = setTimeout(() => resolve({ skip: `the test cluster did not start within 180 s: ${clusterErr.slice(-500)}` }), 180_000);
    cluster.stdout.on('data', (d) => {
      out += d;
      const nl = out.indexOf('\n');
      if (nl >= 0) { clearTimeout(t); try { resolve(JSON.parse(out.slice(0, nl))); } catch { resolve({ skip: `test cluster said: ${out.slice(0, 300)}` }); } }
    });
    cluster.on('exit', (code) => { clearTimeout(t); resolve({ skip: `the test cluster exited (${code}): ${clusterErr.slice(-500)}` }); });
  });
}

const freePort = () => new Promise((r) => { const s = net.createServer(); s.listen(0, '127.0.0.1', () => { const p = s.address().port; s.close(() => r(p)); }); });
const port = await freePort();
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'dsw-ui-'));
const workspace = path.join(tmp, 'workspace');
fs.cpSync(path.join(root, 'test/fixtures/workspace'), workspace, { recursive: true });
fs.mkdirSync(path.join(workspace, '.vscode'), { recursive: true });
const workspaceSettings = path.join(workspace, '.vscode/settings.json');
fs.writeFileSync(workspaceSettings, JSON.stringify({ 'dynamoSnapshot.defaultWorker': 'local-demo' }, null, 1));
const userData = path.join(tmp, 'user-data');
fs.mkdirSync(path.join(userData, 'User'), { recursive: true });
fs.writeFileSync(path.join(userData, 'User', 'settings.json'), JSON.stringify({
  'workbench.startupEditor': 'none', 'extensions.autoCheckUpdates': false, 'extensions.autoUpdate': false,
  'telemetry.telemetryLevel': 'off', 'update.mode': 'none', 'workbench.tips.enabled': false,
  'workbench.colorTheme': process.env.DSW_UI_THEME || 'Default Dark Modern', 'window.commandCenter': false,
  'workbench.layoutControl.enabled': false, 'chat.commandCenter.enabled': false,
  // VS Code 1.104+: no chat panel or agent host in the pictures (older releases ignore the key).
  'chat.disableAIFeatures': true,
}));
// VSCODE_OPTIONS=enable-smoke-test-driver: VS Code 1.139 honours the payload's extensionDevelopmentPath
// only with this server flag (code-server 4.139 passes it through; 4.100 ignores it).
const env = { ...process.env, EXTENSIONS_GALLERY: '{}', VSCODE_OPTIONS: 'enable-smoke-test-driver', HOME: path.join(tmp, 'home'), XDG_CONFIG_HOME: path.join(tmp, 'config'), XDG_DATA_HOME: path.join(tmp, 'data') };
fs.mkdirSync(env.HOME, { recursive: true });
const hostNode = spawnSync(host.node, ['-v'], { encoding: 'utf8' }).stdout?.trim() || '?';
console.log(`[ui] ${host.name} host: code-server ${host.codeServerVersion} = VS Code ${host.vscodeVersion ?? '?'} on Node ${hostNode}`);
const server = spawn(host.node, [codeServer, '--auth', 'none', '--bind-addr', `127.0.0.1:${port}`, '--disable-telemetry', '--disable-update-check',
  '--disable-workspace-trust', '--disable-getting-started-override', '--user-data-dir', userData, '--extensions-dir', path.join(tmp, 'extensions'), '--ignore-last-opened'],
{ env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
let log = '';
server.stdout.on('data', (d) => { log += d; });
server.stderr.on('data', (d) => { log += d; });

let browser;
const passed = [];
const failed = [];
const skipped = [];
async function finish(code) {
  try { await browser?.close(); } catch { /* already gone */ }
  try { process.kill(-server.pid, 'SIGTERM'); } catch { /* already gone */ }
  // The test cluster stops when its stdin closes.
  try { cluster?.stdin.end(); } catch { /* already gone */ }
  fs.rmSync(tmp, { recursive: true, force: true });
  for (const p of passed) console.log(`ok - ${p}`);
  for (const f of failed) console.log(`not ok - ${f}`);
  for (const k of skipped) console.log(`ok - ${k} # SKIP`);
  console.log(`ui: ${passed.length} passed, ${failed.length} failed${skipped.length ? `, ${skipped.length} skipped` : ''}`);
  process.exit(code);
}
process.on('SIGINT', () => finish(130));

async function step(name, fn) {
  const t = Date.now();
  try {
    const detail = await fn();
    passed.push(`${name}${detail ? `: ${detail}` : ''} (${Date.now() - t} ms)`);
  } catch (e) {
    failed.push(`${name}: ${e.message.split('\n')[0]}`);
    await page?.screenshot({ path: path.join(shotDir, `failed-${failed.length}.png`) }).catch(() => {});
    throw e;
  }
}

for (let i = 0; !/HTTP server listening/.test(log); i++) {
  if (i > 600 || server.exitCode !== null) { console.error(`code-server did not start:\n${log.slice(-2000)}`); await finish(1); }
  await new Promise((r) => setTimeout(r, 100));
}

browser = await chromiumMod.launch({ executablePath: chromiumPath, headless: true,
  args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--disable-dev-shm-usage'] });
const page = await (await browser.newContext({ viewport: { width: 1600, height: 1000 }, deviceScaleFactor: 1 })).newPage();
page.on('pageerror', (e) => console.error('[workbench page error]', String(e)));
const payload = JSON.stringify([['extensionDevelopmentPath', `vscode-remote://127.0.0.1:${port}${root}`], ['skipWelcome', 'true']]);
const t0 = Date.now();

async function palette(title) {
  await page.keyboard.press('F1');
  await page.waitForSelector('.quick-input-widget input', { state: 'visible' });
  await page.keyboard.type(title);
  await page.waitForSelector(`.quick-input-list .monaco-list-row:has-text("${title}")`, { timeout: 20000 });
  await page.keyboard.press('Enter');
}
const pane = (name) => page.locator(`.pane:has(.pane-header:has-text("${name}"))`);
async function expand(name) {
  const header = pane(name).locator('.pane-header');
  if ((await header.getAttribute('aria-expanded')) !== 'true') await header.click();
}
// The webview's content lives two iframes down (the outer host frame, then the active frame).
const webview = () => page.frameLocator('iframe.webview.ready').frameLocator('#active-frame');

try {
  await page.goto(`http://127.0.0.1:${port}/?folder=${encodeURIComponent(workspace)}&payload=${encodeURIComponent(payload)}`);
  await page.waitForSelector('.monaco-workbench', { timeout: 90000 });
  await page.waitForSelector('.statusbar', { timeout: 90000 });
  await page.waitForTimeout(2500);

  await step('the Dynamo Snapshot container opens from the activity bar with its three views', async () => {
    await page.locator('.activitybar .action-item a[aria-label^="Dynamo Snapshot"]').first().click();
    for (const v of ['Workers', 'Ranks', 'Lifecycle']) await pane(v).waitFor({ timeout: 20000 });
    await expand('Workers');
    await pane('Workers').locator('.monaco-list-row:has-text("local-demo")').waitFor({ timeout: 20000 });
    return (await pane('Workers').locator('.monaco-list-row').first().innerText()).replace(/\s+/g, ' ');
  });

  await step('palette → Run Snapshot Smoke Test → the Ranks view fills with one row per rank', async () => {
    await palette('Dynamo Snapshot: Run Snapshot Smoke Test');
    await expand('Ranks');
    const ranks = pane('Ranks');
    for (const r of ['DP0', 'DP1']) await ranks.locator(`.monaco-list-row:has-text("${r}")`).waitFor({ timeout: 60000 });
    await page.screenshot({ path: path.join(shotDir, 'ranks-live.png') });
    const rows = await ranks.locator('.monaco-list-row').allInnerTexts();
    return rows.map((s) => s.split('\n')[0]).join(', ');
  });

  // The Lifecycle view's description names the run; the Report step is last, so when it has left
  // "pending"/"running" for that run, the run is over.
  async function runFinished(previousRun) {
    await expand('Lifecycle');
    const lc = pane('Lifecycle');
    await lc.locator('.monaco-list-row:has-text("Report")').waitFor({ timeout: 20000 });
    await page.waitForFunction((prev) => {
      const header = [...document.querySelectorAll('.pane-header')].find((h) => /Lifecycle/i.test(h.textContent || ''));
      const desc = header?.querySelector('.description')?.textContent || '';
      if (!desc || (prev && desc.startsWith(prev))) return false;
      const rows = [...document.querySelectorAll('.pane .monaco-list-row')].map((r) => r.textContent || '');
      const report = rows.find((t) => t.startsWith('Report'));
      return report && !/pending|running/.test(report) && /passed|failed|cancelled/.test(desc);
    }, previousRun, { timeout: 180000 });
    const desc = await lc.locator('.pane-header .description').innerText();
    return desc.split(' · ')[0];
  }

  let firstRun = '';
  await step('the run finishes: every step has a verdict in the Lifecycle view', async () => {
    firstRun = await runFinished('');
    const rows = await pane('Lifecycle').locator('.monaco-list-row').allInnerTexts();
    return `${firstRun}: ${rows.length} steps`;
  });

  await step('a second run (the history chart compares runs)', async () => {
    await palette('Dynamo Snapshot: Run Snapshot Smoke Test');
    const second = await runFinished(firstRun);
    return second;
  });

  await step('a rank row expands to its lifecycle markers with times', async () => {
    // The main process logs the engine-wide markers, the warm-up included (once for every DP rank, as upstream does).
    const main = pane('Ranks').locator('.monaco-list-row[aria-level="1"]:has-text("main")').first();
    await main.locator('.monaco-tl-twistie').click();
    await pane('Ranks').locator('.monaco-list-row:has-text("warm-up")').first().waitFor({ timeout: 10000 });
    const markers = await pane('Ranks').locator('.monaco-list-row[aria-level="2"]').allInnerTexts();
    if (markers.length < 3) throw new Error(`only ${markers.length} marker rows under main`);
    return `${markers.length} rows under main, e.g. ${markers[0].replace(/\s+/g, ' ').slice(0, 60)}`;
  });

  await step('Show Lifecycle → the panel draws a lane per rank coloured by phase, verdicts and history', async () => {
    await palette('Dynamo Snapshot: Show Lifecycle');
    const wv = webview();
    await wv.locator('.lane .seg.phase-warmup').first().waitFor({ timeout: 30000 });
    await wv.locator('.badge').waitFor();
    const lanes = await wv.locator('.lane:not(.steps-lane):not(.axis-row) .lane-label').allInnerTexts();
    if (!lanes.some((l) => l.startsWith('DP0')) || !lanes.some((l) => l.startsWith('DP1'))) throw new Error(`lanes: ${lanes.join(', ')}`);
    const badge = await wv.locator('.badge').innerText();
    const restore = await wv.locator('.figure.restore .value').innerText();
    const bars = await wv.locator('.chart .bar').count();
    if (bars < 4) throw new Error(`history chart shows ${bars} bars, expected restore and warm-up for two runs`);
    // The picture for the README: no toasts, the Lifecycle tree folded so the Ranks tree has room.
    await palette('Notifications: Clear All Notifications');
    const lcHeader = pane('Lifecycle').locator('.pane-header');
    if ((await lcHeader.getAttribute('aria-expanded')) === 'true') await lcHeader.click();
    // Focus back on the panel's tab, so no focus ring is left on the folded header.
    await page.locator('.tab:has-text("Snapshot Lifecycle")').click();
    await page.mouse.move(0, 0);
    await page.waitForTimeout(300);
    await page.screenshot({ path: path.join(shotDir, 'lifecycle-panel.png') });
    return `lanes ${lanes.map((l) => l.trim()).join(', ')}; outcome ${badge}; restore ${restore}; ${bars} history bars`;
  });

  await step('hovering a segment shows its evidence (the marker line)', async () => {
    const wv = webview();
    const seg = wv.locator('.lane .seg.phase-warmup').first();
    await seg.hover();
    const tip = wv.locator('#tip');
    await tip.waitFor({ state: 'visible', timeout: 5000 });
    const text = await tip.innerText();
    if (!/warm/i.test(text)) throw new Error(`tooltip: ${text}`);
    await page.screenshot({ path: path.join(shotDir, 'lifecycle-hover.png') });
    return text.replace(/\s+/g, ' ').slice(0, 90);
  });

  await step('the keyboard reaches the segments: Tab focuses one, arrows move, each has an aria label', async () => {
    const wv = webview();
    await wv.locator('.seg').first().focus();
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowRight');
    const label = await wv.locator('.seg:focus').getAttribute('aria-label');
    if (!label) throw new Error('no focused segment with an aria-label');
    const tipShown = await wv.locator('#tip').isVisible();
    if (!tipShown) throw new Error('focus does not show the evidence');
    await page.screenshot({ path: path.join(shotDir, 'lifecycle-keyboard.png') });
    return label.slice(0, 90);
  });

  // src/ui/compat.ts: QuickPick prompts since VS Code API_SINCE.quickPickPrompt, the placeholder before.
  await step('the run picker says what it lists: under the input where VS Code has prompts, else in the placeholder', async () => {
    const since = (/quickPickPrompt: '([\d.]+)'/.exec(fs.readFileSync(path.join(root, 'src/ui/compat.ts'), 'utf8')) ?? [])[1];
    if (!since || !host.vscodeVersion) throw new Error('cannot tell which path this VS Code takes');
    const [a, b] = host.vscodeVersion.split('.').map(Number);
    const [x, y] = since.split('.').map(Number);
    const promptPath = a > x || (a === x && b >= y);
    const text = 'Current run on top';
    await palette('Dynamo Snapshot: Show Merged Log');
    await page.waitForSelector('.quick-input-list .monaco-list-row:has-text("current")', { timeout: 10000 });
    const shown = () => page.evaluate((t) => {
      const w = document.querySelector('.quick-input-widget');
      const message = [...(w?.querySelectorAll('.quick-input-message') ?? [])].some((e) => e.checkVisibility() && (e.textContent ?? '').includes(t));
      const placeholder = (w?.querySelector('.quick-input-box input')?.getAttribute('placeholder') ?? '').includes(t);
      return { message, placeholder };
    }, text);
    const before = await shown();
    if (promptPath && !(before.message && !before.placeholder)) throw new Error(`VS Code ${host.vscodeVersion}: expected the prompt under the input, got ${JSON.stringify(before)}`);
    if (!promptPath && !(before.placeholder && !before.message)) throw new Error(`VS Code ${host.vscodeVersion}: expected the prompt in the placeholder, got ${JSON.stringify(before)}`);
    await page.screenshot({ path: path.join(shotDir, 'run-picker.png') });
    // What the newer path buys: the explanation stays while the user types a filter.
    await page.keyboard.type('zz');
    const typing = await shown();
    if (promptPath && !typing.message) throw new Error('the prompt went away while typing');
    await page.keyboard.press('Escape');
    return `VS Code ${host.vscodeVersion}: ${promptPath ? 'prompt under the input, kept while typing' : 'prompt in the placeholder'}`;
  });

  await step('Show Merged Log opens a read-only editor with rank-prefixed lines', async () => {
    await palette('Dynamo Snapshot: Show Merged Log');
    // Two runs have logs now: a quick pick asks which, the current run first.
    await page.waitForSelector('.quick-input-list .monaco-list-row:has-text("current")', { timeout: 10000 });
    await page.keyboard.press('Enter');
    await page.waitForSelector('.editor-instance .view-lines:has-text("DP0")', { timeout: 20000 });
    const tab = await page.locator('.tab.active').innerText();
    await page.screenshot({ path: path.join(shotDir, 'merged-log.png') });
    return `tab "${tab.split('\n')[0]}"`;
  });
  if (clusterInfo.skip) {
    if (process.env.DSW_REQUIRE_SYSTEM === '1') throw new Error(`required system part missing: ${clusterInfo.skip}`);
    skipped.push(`the Snapshots view (${clusterInfo.skip})`);
  } else {
    await step('a kubernetes worker profile brings the Snapshots view; it shows the cluster\'s PodSnapshots → content → SnapshotJob → restored pods with their Restored reason', async () => {
      // The view appears with the first kubernetes profile (as a user adds one to the settings).
      fs.writeFileSync(workspaceSettings, JSON.stringify({ 'dynamoSnapshot.defaultWorker': 'local-demo', 'dynamoSnapshot.kubectl.kubeconfig': clusterInfo.kubeconfig, 'dynamoSnapshot.workers': [clusterInfo.profile] }, null, 1));
      await pane('Snapshots').waitFor({ timeout: 30000 });
      // Room for the view: fold the Ranks and Lifecycle trees, close the editors.
      await page.keyboard.press('Escape');
      await palette('View: Close All Editors');
      for (const v of ['Ranks', 'Lifecycle']) {
        const h = pane(v).locator('.pane-header');
        if ((await h.getAttribute('aria-expanded')) === 'true') await h.click();
      }
      await expand('Snapshots');
      const snaps = pane('Snapshots');
      const top = snaps.locator('.monaco-list-row:has-text("llama-snap")').first();
      await top.waitFor({ timeout: 60000 });
      await snaps.locator('.monaco-list-row:has-text("qwen-snap")').first().waitFor({ timeout: 30000 });
      await top.locator('.monaco-tl-twistie').click();
      for (const text of ['SnapshotJob llama-job', 'llama-restore-0', 'RestoreSucceeded', 'llama-restore-1', 'RestoreIncompatible']) await snaps.locator(`.monaco-list-row:has-text("${text}")`).first().waitFor({ timeout: 30000 });
      const content = snaps.locator('.monaco-list-row:has-text("podsnapshotcontent-")').first();
      await content.locator('.monaco-tl-twistie').click();
      for (const text of ['storage', 'captured on']) await snaps.locator(`.monaco-list-row:has-text("${text}")`).first().waitFor({ timeout: 15000 });
      // A wider side bar, so the descriptions (Restored reason, restore time, node) are readable.
      const bar = await page.locator('.part.sidebar').boundingBox();
      if (bar) {
        await page.mouse.move(bar.x + bar.width - 1, bar.y + bar.height / 2);
        await page.mouse.down();
        await page.mouse.move(bar.x + 640, bar.y + bar.height / 2, { steps: 8 });
        await page.mouse.up();
      }
      await page.mouse.move(0, 0);
      await page.waitForTimeout(300);
      await page.screenshot({ path: path.join(shotDir, 'snapshots-view.png') });
      const rows = await snaps.locator('.monaco-list-row').allInnerTexts();
      return `${rows.length} rows, e.g. ${rows.slice(0, 3).map((r) => r.replace(/\s+/g, ' ')).join(' | ')}`;
    });

    await step('Open YAML (Read-Only) shows the PodSnapshot as the API server returns it', async () => {
      const row = pane('Snapshots').locator('.monaco-list-row:has-text("llama-snap")').first();
      await row.click({ button: 'right' });
      await page.locator('.context-view .action-label:has-text("Open YAML (Read-Only)")').click();
      await page.waitForSelector('.editor-instance .view-lines:has-text("kind: PodSnapshot")', { timeout: 30000 });
      return `tab "${(await page.locator('.tab.active').innerText()).split('\n')[0]}"`;
    });

    await step('Compare Snapshots… puts two snapshots side by side, differences marked', async () => {
      const row = pane('Snapshots').locator('.monaco-list-row:has-text("llama-snap")').first();
      await row.click({ button: 'right' });
      await page.locator('.context-view .action-label:has-text("Compare Snapshots")').click();
      await page.waitForSelector('.quick-input-list .monaco-list-row:has-text("qwen-snap")', { timeout: 15000 });
      await page.keyboard.press('Enter');
      await page.waitForSelector('.monaco-diff-editor', { timeout: 30000 });
      await page.waitForSelector('.monaco-diff-editor .view-lines:has-text("captured on GPUs")', { timeout: 30000 });
      await page.mouse.move(0, 0);
      await page.waitForTimeout(300);
      await page.screenshot({ path: path.join(shotDir, 'snapshots-compare.png') });
      return `tab "${(await page.locator('.tab.active').innerText()).split('\n')[0]}"`;
    });
  }
  console.log(`[ui] finished in ${Date.now() - t0} ms`);
  await finish(0);
} catch (e) {
  console.error(`[ui] ${e.stack || e}`);
  if (process.env.DSW_UI_VERBOSE) console.error(log.slice(-3000));
  await finish(1);
}

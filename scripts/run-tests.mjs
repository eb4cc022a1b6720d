// Runs every test tier and prints one closing `N passed, N failed, N skipped` line.
//   node scripts/run-tests.mjs [unit|system|integration|ui ...]
// Tiers: static (tsc --noEmit, eslint with zero warnings, the VSIX: contents and install into the
// host), unit (node --test, no VS Code), system (node --test against real parts: sshd, CRIU,
// kubectl, Neovim, the CLI), integration (mocha inside a real VS Code extension host), ui
// (playwright-core driving the workbench). The integration and ui tiers run on every VS Code host in
// test/vscode-host/hosts.mjs (the minimum engines.vscode and the newest); the closing line counts both.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { HOSTS, selectedHosts } from '../test/vscode-host/hosts.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const ALL = ['static', 'unit', 'system', 'integration', 'ui'];
const wanted = process.argv.slice(2).filter((a) => !a.startsWith('-'));
const tiers = wanted.length ? wanted : ALL;
for (const t of tiers) if (!ALL.includes(t)) { console.error(`unknown tier "${t}" (tiers: ${ALL.join(', ')})`); process.exit(2); }

function run(cmd, args, opts = {}) {
  return new Promise((resolve) => {
    let out = '';
    const child = spawn(cmd, args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...opts.env } });
    child.stdout.on('data', (d) => { out += d; process.stdout.write(d); });
    child.stderr.on('data', (d) => { out += d; process.stderr.write(d); });
    child.on('close', (code, signal) => resolve({ code: code ?? (signal ? 128 : 1), out }));
  });
}

function listTests(dir) {
  const abs = path.join(root, dir);
  if (!fs.existsSync(abs)) return [];
  return fs.readdirSync(abs, { recursive: true }).filter((f) => f.endsWith('.test.js')).sort().map((f) => path.join(dir, f));
}

/** node --test's spec reporter ends with `ℹ pass N`, `ℹ fail N`, `ℹ skipped N`, … */
function nodeCounts(out) {
  const n = (k) => Number((new RegExp(`^\\S* ?${k} (\\d+)$`, 'm').exec(out) ?? [])[1] ?? 0);
  return { passed: n('pass'), failed: n('fail') + n('cancelled'), skipped: n('skipped') + n('todo') };
}

/** The host launcher and the UI test print `<word>: N passed, N failed[, N skipped]`. */
function closingCounts(out) {
  const all = [...out.matchAll(/^(?:\S+:?\s)?(\d+) passed, (\d+) failed(?:, (\d+) skipped)?\s*$/gm)];
  const m = all.at(-1);
  return m ? { passed: Number(m[1]), failed: Number(m[2]), skipped: Number(m[3] ?? 0) } : undefined;
}

const totals = { passed: 0, failed: 0, skipped: 0 };
const lines = [];
function record(tier, counts, code, note = '') {
  let c = counts ?? { passed: 0, failed: 0, skipped: 0 };
  // A tier that crashed, or exited non-zero without reporting a failure, counts as one failure.
  if (code !== 0 && c.failed === 0) c = { ...c, failed: c.failed + 1 };
  for (const k of Object.keys(totals)) totals[k] += c[k];
  lines.push(`${tier.padEnd(12)} ${c.passed} passed, ${c.failed} failed, ${c.skipped} skipped${note}`);
}

const started = Date.now();
const build = await run(process.execPath, ['scripts/build.mjs']);
if (build.code !== 0) { record('build', undefined, build.code); }

const nodeTier = async (tier) => {
  const files = listTests(path.join('out', 'test', tier));
  if (files.length === 0) { lines.push(`${tier.padEnd(12)} no test files`); return; }
  // System tests share machine-wide resources (sshd port, CRIU PIDs): run their files one at a time.
  const concurrency = tier === 'system' ? ['--test-concurrency=1'] : [];
  const r = await run(process.execPath, ['--enable-source-maps', '--test', '--test-reporter=spec', ...concurrency, ...files]);
  record(tier, nodeCounts(r.out), r.code);
};

for (const tier of tiers) {
  if (build.code !== 0) break;
  const t0 = Date.now();
  const tierLine = lines.length;
  console.log(`\n=== ${tier} tests ===`);
  if (tier === 'static') {
    const checks = [];
    for (const [name, cmd, args] of [
      ['typecheck', 'npx', ['--no-install', 'tsc', '--noEmit', '-p', '.']],
      ['eslint', 'npx', ['--no-install', 'eslint', '.', '--max-warnings=0']],
    ]) {
      const r = await run(cmd, args);
      console.log(`  ${r.code === 0 ? '✔' : '✖'} ${name}`);
      checks.push(r.code === 0);
    }
    const v = await run(process.execPath, ['scripts/check-vsix.mjs']);
    const vc = closingCounts(v.out) ?? { passed: 0, failed: 1, skipped: 0 };
    const ok = checks.filter(Boolean).length;
    record(tier, { passed: ok + vc.passed, failed: checks.length - ok + vc.failed, skipped: 0 }, 0);
  } else if (tier === 'unit' || tier === 'system') await nodeTier(tier);
  else if (tier === 'integration') {
    // @vscode/test-electron 3 declares Node >= 22: run it on the newest host's Node 24 when installed.
    const newest = HOSTS.find((h) => h.name === 'newest');
    const node = newest?.installed && fs.existsSync(newest.node) ? newest.node : process.execPath;
    const r = await run(node, ['scripts/run-integration.mjs']);
    record(tier, closingCounts(r.out), r.code);
    // One summary line per host, with the VS Code version its extension host reported.
    for (const m of r.out.matchAll(/^integration\[(\S+) (\S+)\]: (.*)$/gm)) lines.push(`  ${m[1]} host, VS Code ${m[2]}: ${m[3]}`);
  } else if (tier === 'ui') {
    const script = path.join('test', 'ui', 'ui-test.mjs');
    if (!fs.existsSync(path.join(root, script))) { lines.push(`${tier.padEnd(12)} no UI test`); continue; }
    // The same UI test on each host, one after the other (each starts its own code-server and Chromium).
    const counts = { passed: 0, failed: 0, skipped: 0 };
    const hostLines = [];
    let code = 0;
    let hosts = [];
    try {
      hosts = selectedHosts();
    } catch (e) {
      console.error(`ui: ${e.message}`);
      code = 1;
    }
    for (const host of hosts) {
      const r = await run(process.execPath, [script, '--host', host.name]);
      const c = closingCounts(r.out) ?? { passed: 0, failed: 1, skipped: 0 };
      if (r.code !== 0 && c.failed === 0) c.failed = 1;
      for (const k of Object.keys(counts)) counts[k] += c[k];
      code ||= r.code;
      hostLines.push(`  ${host.name} host, VS Code ${host.vscodeVersion ?? '(not installed)'}: ${c.passed} passed, ${c.failed} failed, ${c.skipped} skipped`);
    }
    record(tier, counts, code);
    lines.push(...hostLines);
  }
  if (lines[tierLine] !== undefined) lines[tierLine] += `  (${((Date.now() - t0) / 1000).toFixed(1)} s)`;
}

console.log(`\n=== summary (${((Date.now() - started) / 1000).toFixed(0)} s) ===`);
for (const l of lines) console.log(l);
const closing = `${totals.passed} passed, ${totals.failed} failed, ${totals.skipped} skipped`;
fs.mkdirSync(path.join(root, 'out'), { recursive: true });
fs.writeFileSync(path.join(root, 'out', 'test-summary.txt'), closing + '\n');
console.log(closing);
process.exit(totals.failed > 0 || build.code !== 0 ? 1 : 0);

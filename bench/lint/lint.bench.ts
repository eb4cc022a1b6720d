/**
 * Snapshot lint benchmark (issue #3 §Performance), one run, medians of several:
 *   (a) open-to-diagnostics through the LSP (`node dist/server.js --stdio`) vs CPython `ast.parse` of
 *       the same file (python3, in-process timing)                                   target ≤ 1.0×
 *   (b) edit-to-diagnostics after a one-character edit vs ruff's wasm `check` of the same file
 *       (default rules, @astral-sh/ruff-wasm-nodejs from bench/lint/node_modules)     target ≤ 1.0×
 *   (c) `node dist/cli.js lint` over a tree of 1,000 files vs a node process running ruff's wasm
 *       check over the same files                                                      target ≤ 2.0×
 * Files: 1k/10k/100k lines from bench/lint/generate.py (stdlib statements + snapshot blocks).
 *   npm run build && (cd bench/lint && npm ci --ignore-scripts) && node --expose-gc out/bench/lint/lint.bench.js [--quick]
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { repoRoot } from '../../test/support/paths';
import { LspClient } from '../../test/system/lint/lspClient';

const quick = process.argv.includes('--quick');
/** [lines, timed runs, warm-up opens]: enough warm-ups that the server's JIT has settled, as CPython's is. */
const SIZES: [number, number, number][] = quick ? [[1000, 9, 20], [10_000, 5, 10]] : [[1000, 15, 30], [10_000, 9, 15], [100_000, 5, 5]];
const TREE_FILES = 1000;
/**
 * Every anchor and our server run warm: V8 runs wasm on baseline code first and tiers hot functions up
 * in the background (ruff's check of the 10k file: ~100 ms for its first ~15 calls, then ~20 ms), so
 * each side repeats its work for at least this long before anything is timed.
 */
const WARM_MS = 3000;
const ruffPkg = path.join(repoRoot, 'bench', 'lint', 'node_modules', '@astral-sh', 'ruff-wasm-nodejs', 'ruff_wasm.js');

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};
const fmt = (ms: number): string => (ms < 10 ? ms.toFixed(2) : ms.toFixed(1));

function generate(lines: number, out: string): void {
  const r = spawnSync('python3', [path.join(repoRoot, 'bench', 'lint', 'generate.py'), String(lines), out], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`generate.py failed: ${r.stderr}`);
  process.stdout.write(`  ${r.stdout}`);
}

/** CPython's `ast.parse` of the file: per-run ms, timed inside one python3 process. */
function cpythonParse(file: string, runs: number): number[] {
  const script = `import ast, gc, json, sys, time
src = open(sys.argv[1], encoding="utf-8").read()
t0 = time.perf_counter()
while time.perf_counter() - t0 < 0.5:
    ast.parse(src)
out = []
for _ in range(int(sys.argv[2])):
    gc.collect(); t = time.perf_counter(); ast.parse(src); out.append((time.perf_counter() - t) * 1000)
print(json.dumps(out))`;
  const r = spawnSync('python3', ['-c', script, file, String(runs)], { encoding: 'utf8', maxBuffer: 1 << 24 });
  if (r.status !== 0) throw new Error(`python3: ${r.stderr}`);
  return JSON.parse(r.stdout) as number[];
}

/**
 * ruff's wasm `check` of the file: per-run ms, timed inside its own node process (as CPython's parse
 * is), so ruff's wasm heap never shares the LSP client's process and disturbs its timings.
 */
function ruffCheck(file: string, runs: number): { ms: number[]; findings: number } {
  const script = `const r = require(process.argv[1]); const text = require('fs').readFileSync(process.argv[2], 'utf8');
const ws = new r.Workspace({}, r.PositionEncoding.Utf16); let findings = 0; const ms = [];
for (let n = 0, t0 = performance.now(); n < 3 || performance.now() - t0 < Number(process.argv[4]); n++) findings = ws.check(text).length;
for (let i = 0; i < Number(process.argv[3]); i++) { global.gc(); const t = performance.now(); findings = ws.check(text).length; ms.push(performance.now() - t); }
ws.free(); process.stdout.write(JSON.stringify({ ms, findings }));`;
  const r = spawnSync(process.execPath, ['--expose-gc', '-e', script, ruffPkg, file, String(runs), String(WARM_MS)], { encoding: 'utf8', maxBuffer: 1 << 24 });
  if (r.status !== 0) throw new Error(`ruff-wasm check: ${r.stderr}`);
  return JSON.parse(r.stdout) as { ms: number[]; findings: number };
}

async function lspTimes(client: LspClient, text: string, runs: number, warm: number, tag: string): Promise<{ open: number[]; serverMs: number[]; edit: number[]; diagnostics: number }> {
  const open: number[] = [];
  const serverMs: number[] = [];
  let diagnostics = 0;
  // Warm-ups (the server's JIT and wasm tier-up: at least `warm` opens and WARM_MS), then timed opens
  // of fresh documents (each a new URI, so no cached tree).
  const warmStart = performance.now();
  let warmed = 0;
  for (let i = -1; i < runs; i++) {
    if (i === -1 && (warmed < warm || performance.now() - warmStart < WARM_MS)) i = -2;
    const uri = `file:///bench/${tag}/${i < 0 ? `warm${warmed++}` : i}/snapshot.py`;
    global.gc?.();
    // Let the collector's background threads finish: on 2 cores they would compete with the server.
    await new Promise((r) => setTimeout(r, 20));
    const wait = client.diagnostics(uri, 1, 60_000);
    const report = client.waitFor((m) => m.method === 'dynamoSnapshot/validationReport' && (m.params as { uri: string }).uri === uri, 60_000);
    const t = performance.now();
    client.notify('textDocument/didOpen', { textDocument: { uri, languageId: 'python', version: 1, text } });
    diagnostics = (await wait).diagnostics.length;
    if (i >= 0) open.push(performance.now() - t);
    if (i >= 0) serverMs.push((await report).params ? ((await report).params as { ms: number }).ms : NaN);
    client.notify('textDocument/didClose', { textDocument: { uri } });
  }
  // One document, one-character edits in the middle (insert, then delete), each timed to its diagnostics.
  const uri = `file:///bench/${tag}/edit/snapshot.py`;
  const first = client.diagnostics(uri, 1, 60_000);
  client.notify('textDocument/didOpen', { textDocument: { uri, languageId: 'python', version: 1, text } });
  await first;
  // As python-analysis.md §5: `restored` → `restoredx` at the occurrence nearest the middle, and back.
  const lines = text.split('\n');
  const mid = Math.floor(lines.length / 2);
  const candidates = lines.map((l, i) => (l.includes('restored = ') ? i : -1)).filter((i) => i >= 0);
  const line = candidates.sort((x, y) => Math.abs(x - mid) - Math.abs(y - mid))[0]!;
  const character = lines[line]!.indexOf('restored') + 'restored'.length;
  const edit: number[] = [];
  for (let v = 2; v < 2 + 2 * (runs + 1); v++) {
    const insert = v % 2 === 0;
    const change = insert
      ? { range: { start: { line, character }, end: { line, character } }, text: 'x' }
      : { range: { start: { line, character }, end: { line, character: character + 1 } }, text: '' };
    const wait = client.diagnostics(uri, v, 60_000);
    const t = performance.now();
    client.notify('textDocument/didChange', { textDocument: { uri, version: v }, contentChanges: [change] });
    await wait;
    if (v >= 4) edit.push(performance.now() - t);
    await new Promise((r) => setTimeout(r, 20));
  }
  client.notify('textDocument/didClose', { textDocument: { uri } });
  return { open, serverMs, edit, diagnostics };
}

function makeTree(dir: string, source: string): void {
  // 1,000 files of 20–200 lines cut at top-level statements of the 10k file, each a valid module.
  const chunks = source.split(/\n(?=(?:async def|def|class|@)[^\n]*\n)/);
  let k = 0;
  for (let i = 0; i < TREE_FILES; i++) {
    let text = '';
    while (text.split('\n').length < 20 + ((i * 37) % 180)) text += chunks[k++ % chunks.length] + '\n';
    const sub = path.join(dir, `pkg${i % 20}`, i % 10 === 0 ? `snapshot_${i}` : `mod_${i}`);
    fs.mkdirSync(sub, { recursive: true });
    fs.writeFileSync(path.join(sub, i % 10 === 0 ? 'snapshot.py' : `m${i}.py`), text);
  }
}

function wall(cmd: string, args: string[], runs: number): number[] {
  const out: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    const r = spawnSync(cmd, args, { encoding: 'utf8', maxBuffer: 1 << 26 });
    out.push(performance.now() - t);
    if (r.status !== 0 && r.status !== 1) throw new Error(`${cmd} ${args.join(' ')} → ${r.status}: ${r.stderr.slice(0, 2000)}`);
  }
  return out;
}

async function main(): Promise<number> {
  if (!fs.existsSync(ruffPkg)) {
    process.stderr.write(`ruff's wasm build is missing: (cd bench/lint && npm ci --ignore-scripts)\n`);
    return 2;
  }
  const server = path.join(repoRoot, 'dist', 'server.js');
  const cli = path.join(repoRoot, 'dist', 'cli.js');
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'dsw-lint-bench-'));
  const rows: Record<string, unknown>[] = [];
  const client = new LspClient(server);
  await client.initialize('file:///bench');
  console.log(`snapshot lint bench — node ${process.version}, ${os.cpus().length} cores, load ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}`);
  try {
    let tenK = '';
    for (const [lines, runs, warm] of SIZES) {
      const file = path.join(tmp, `gen_${lines}.py`);
      generate(lines, file);
      const text = fs.readFileSync(file, 'utf8');
      if (lines === 10_000) tenK = text;
      const py = median(cpythonParse(file, runs));
      const rf = ruffCheck(file, runs);
      const lsp = await lspTimes(client, text, runs, warm, String(lines));
      const a = median(lsp.open);
      const b = median(lsp.edit);
      const row = {
        lines, runs, cpythonParseMs: py, ruffCheckMs: median(rf.ms), ruffFindings: rf.findings,
        lspOpenMs: a, serverValidationMs: median(lsp.serverMs), lspEditMs: b, diagnostics: lsp.diagnostics, ratioOpenVsCPython: a / py, ratioEditVsRuff: b / median(rf.ms),
      };
      rows.push(row);
      console.log(`${String(lines).padStart(6)} lines: open→diagnostics ${fmt(a)} ms vs CPython ast.parse ${fmt(py)} ms = ${(a / py).toFixed(2)}× (target ≤ 1.0) [parse+rules in the server ${fmt(median(lsp.serverMs))} ms]; ` +
        `edit→diagnostics ${fmt(b)} ms vs ruff-wasm check ${fmt(median(rf.ms))} ms = ${(b / median(rf.ms)).toFixed(2)}× (target ≤ 1.0); ${lsp.diagnostics} diagnostics`);
    }
    const treeDir = path.join(tmp, 'tree');
    makeTree(treeDir, tenK);
    const treeRuns = quick ? 2 : 5;
    const ours = median(wall(process.execPath, [cli, 'lint', '--format', 'json', treeDir], treeRuns));
    const ruffScript = `const r = require(${JSON.stringify(ruffPkg)}); const fs = require('fs'), path = require('path');
const ws = new r.Workspace({}, r.PositionEncoding.Utf16); let n = 0;
const walk = (d) => { for (const e of fs.readdirSync(d, { withFileTypes: true })) { const p = path.join(d, e.name); if (e.isDirectory()) walk(p); else if (p.endsWith('.py')) n += ws.check(fs.readFileSync(p, 'utf8')).length; } };
walk(${JSON.stringify(treeDir)}); process.stdout.write(String(n));`;
    const theirs = median(wall(process.execPath, ['-e', ruffScript], treeRuns));
    rows.push({ treeFiles: TREE_FILES, runs: treeRuns, cliMs: ours, ruffProcessMs: theirs, ratioCliVsRuff: ours / theirs });
    console.log(`tree of ${TREE_FILES} files: dsw lint ${fmt(ours)} ms vs ruff-wasm process ${fmt(theirs)} ms = ${(ours / theirs).toFixed(2)}× (target ≤ 2.0)`);
    const out = path.join(repoRoot, 'bench', 'results', 'lint.json');
    fs.mkdirSync(path.dirname(out), { recursive: true });
    fs.writeFileSync(out, JSON.stringify({ date: new Date().toISOString(), node: process.version, cores: os.cpus().length, quick, rows }, null, 2) + '\n');
    console.log(`results: ${path.relative(repoRoot, out)}`);
  } finally {
    await client.shutdown();
    fs.rmSync(tmp, { recursive: true, force: true });
  }
  return 0;
}

main().then((c) => (process.exitCode = c), (e: unknown) => {
  console.error(e);
  process.exitCode = 1;
});

#!/usr/bin/env node
// Views benchmark: runs the recorded host tests (test/integration/viewsBench.test.ts and
// viewsFlood.test.ts) in the offline VS Code host and prints each figure against its anchor,
// measured in the same run, and against the targets:
//   activation < 20 ms (anchor: a built-in extension's bundle load in the same host),
//   largest event-loop stall under the flood < 100 ms (anchor: the idle host's largest stall).
//   npm run build && node bench/views/run.mjs
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const results = path.join(root, 'bench', 'results');
for (const f of ['views-activation.json', 'views-flood.json']) fs.rmSync(path.join(results, f), { force: true });

const code = await new Promise((resolve) => {
  const child = spawn(process.execPath, ['scripts/run-integration.mjs'], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, DSW_INTEGRATION_GREP: 'Views: (activation|flood)' },
  });
  child.stdout.on('data', (d) => {
    for (const l of String(d).split('\n')) if (/\[views-|passing|failing|vscode:/.test(l)) console.log(l);
  });
  child.on('close', (c) => resolve(c ?? 1));
});
if (code !== 0) {
  console.error(`bench/views: the host run failed (exit ${code})`);
  process.exit(1);
}
const read = (f) => JSON.parse(fs.readFileSync(path.join(results, f), 'utf8'));
const act = read('views-activation.json');
const flood = read('views-flood.json');
const ok = (v, target) => (v < target ? 'meets' : 'MISSES');
const ratio = (a, b) => (b ? `${(a / b).toFixed(2)}×` : 'n/a');
console.log('\n## Views benchmark');
console.log(`activate()            ${act.activationMs} ms (views: ${act.viewsRegisterMs} ms) — target < 20 ms: ${ok(act.activationMs, 20)}`);
console.log(`bundle load           ${act.bundleLoadMs} ms for ${(act.bundleBytes / 1024).toFixed(0)} KiB — ${ratio(act.bundleLoadMs, act.anchorLoadMs)} of ${act.anchor ?? 'no anchor'} (${act.anchorLoadMs ?? '?'} ms, ${((act.anchorBytes ?? 0) / 1024).toFixed(0)} KiB)`);
console.log(`flood                 ${flood.ranks} ranks × ${flood.linesPerRank} lines in ${flood.floodMs} ms (${flood.linesPerSecond} lines/s)`);
console.log(`largest stall         ${flood.largestStallMs} ms (event-loop delay max ${flood.eventLoopDelayMaxMs} ms, p99 ${flood.eventLoopDelayP99Ms} ms) — ${ratio(flood.largestStallMs, flood.idleStallMs)} of idle (${flood.idleStallMs} ms) — target < 100 ms: ${ok(flood.largestStallMs, 100)}`);
console.log(`worst batch           ${flood.worstBatchMs} ms wall, ${flood.worstBatchCpuMs} ms CPU (largest CPU time of any batch of ${flood.batchLines} lines: ${flood.maxBatchCpuMs} ms); load average ${flood.loadAverage?.join(' ')}`);
console.log(`memory                live heap (after a full GC) ${flood.liveHeapBeforeMB} MB before → ${flood.liveHeapAfterMB} MB after 1.6M lines; peak heap incl. garbage ${flood.heapPeakMB} MB, rss ${flood.rssMB} MB`);
console.log(`refreshes             tree ${flood.treeRefreshes}, documents ${flood.documentRenders}, panel ${flood.panelPosts}`);
console.log(`gc                    largest pause ${flood.gcMaxPauseMs} ms, total ${flood.gcTotalMs} ms`);
for (const [k, c] of Object.entries(flood.costs ?? {})) console.log(`views: ${k.padEnd(14)} ${String(c.count).padStart(6)} × — total ${c.totalMs} ms, worst ${c.maxMs} ms`);

/**
 * Records, in the host, what the views cost at start: the extension's activate() time, the views'
 * share of it, and how long the extension bundle takes to load (require) compared with a built-in
 * extension's bundle loaded the same way in the same run. Numbers only (no timing assertions); they
 * go to bench/results/views-activation.json for bench/views (bench/README.md "## Views").
 */
import * as assert from 'assert';
import fs from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import * as vscode from 'vscode';
import { repoRoot } from '../support/paths';
import { viewsService } from './support';

/** Loads a fresh copy of a bundle placed inside this extension (so `require('vscode')` resolves) and times it. */
function timeLoad(src: string, name: string): number {
  const dir = path.join(repoRoot, 'out', 'bench-load');
  fs.mkdirSync(dir, { recursive: true });
  const copy = path.join(dir, `${name}-${Date.now()}.js`);
  fs.copyFileSync(src, copy);
  try {
    const t0 = performance.now();
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    require(copy);
    return performance.now() - t0;
  } finally {
    fs.rmSync(copy, { force: true });
  }
}

suite('Views: activation and bundle load (recorded)', () => {
  test('activation time, the views\' share, and bundle load time against a built-in extension', async () => {
    const { a, v } = await viewsService();
    const bundle = path.join(repoRoot, 'dist', 'extension.js');
    // Several loads, the median: one cold load is noise on a shared 2-core machine.
    const loads = [0, 1, 2, 3, 4].map(() => timeLoad(bundle, 'extension'));
    const anchorExt = vscode.extensions.all.find((e) => e.id === 'vscode.git') ?? vscode.extensions.all.find((e) => e.id === 'vscode.npm');
    let anchorMs: number | undefined;
    let anchorBytes: number | undefined;
    const anchorMain = anchorExt ? (JSON.parse(fs.readFileSync(path.join(anchorExt.extensionPath, 'package.json'), 'utf8')) as { main?: string }).main : undefined;
    if (anchorExt && anchorMain) {
      const file = require.resolve(path.join(anchorExt.extensionPath, anchorMain));
      anchorBytes = fs.statSync(file).size;
      try {
        anchorMs = median([0, 1, 2, 3, 4].map(() => timeLoad(file, 'anchor')));
      } catch (e) {
        console.log(`[views-bench] anchor ${anchorExt.id} could not be loaded: ${e instanceof Error ? e.message : String(e)}`);
      }
    }
    const result = {
      when: new Date().toISOString(),
      vscode: vscode.version,
      activationMs: round(a.activationMs),
      viewsRegisterMs: round(v.registerMs),
      bundleBytes: fs.statSync(bundle).size,
      bundleLoadMs: round(median(loads)),
      anchor: anchorExt?.id,
      anchorBytes,
      anchorLoadMs: anchorMs === undefined ? undefined : round(anchorMs),
    };
    console.log(`[views-bench] ${JSON.stringify(result)}`);
    const out = path.join(repoRoot, 'bench', 'results');
    fs.mkdirSync(out, { recursive: true });
    fs.writeFileSync(path.join(out, 'views-activation.json'), JSON.stringify(result, null, 1) + '\n');
    assert.ok(Number.isFinite(result.activationMs) && Number.isFinite(result.bundleLoadMs));
  });
});

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

function round(x: number): number {
  return Math.round(x * 100) / 100;
}

/**
 * Neovim headless as a real third-party LSP client (test/system/lint/check.lua): diagnostics arrive
 * from `node dist/server.js --stdio`, code actions are offered, and the preferred fix applies.
 * Skips with the reason when nvim is missing, unless DSW_REQUIRE_SYSTEM=1.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import test from 'node:test';
import { fixtures, repoRoot } from '../../support/paths';

const nvim = spawnSync('nvim', ['--version'], { encoding: 'utf8' });
const missing = nvim.error ? 'nvim is not installed (apt-get install neovim)' : undefined;

test('Neovim gets diagnostics and the os._exit fix from the server', (t) => {
  if (missing) {
    if (process.env.DSW_REQUIRE_SYSTEM === '1') assert.fail(missing);
    t.skip(missing);
    return;
  }
  t.diagnostic(nvim.stdout.split('\n')[0]!);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dsw-nvim-'));
  try {
    const file = path.join(dir, 'snapshot.py');
    fs.copyFileSync(path.join(fixtures, 'lint', 'positives', 'capture_branch.py'), file);
    const started = Date.now();
    const r = spawnSync('nvim', ['--headless', '--clean', '-u', 'NONE', '-c', `luafile ${path.join(repoRoot, 'test', 'system', 'lint', 'check.lua')}`], {
      cwd: dir,
      encoding: 'utf8',
      timeout: 60_000,
      env: { ...process.env, DSW_SERVER: path.join(repoRoot, 'dist', 'server.js'), DSW_FILE: file },
    });
    t.diagnostic(`nvim ran ${Date.now() - started} ms`);
    const facts = (r.stdout + r.stderr)
      .split(/\r?\n/)
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as { kind: string; [k: string]: unknown });
    assert.equal(r.status, 0, `nvim exited ${r.status}: ${r.stdout}\n${r.stderr}`);
    const diags = facts.filter((f) => f.kind === 'diagnostic');
    assert.deepEqual(diags.map((d) => [d.line, d.col, d.code, d.source]), [[9, 9, 'SNAP001', 'dynamo-snapshot']]);
    const actions = facts.filter((f) => f.kind === 'action');
    assert.deepEqual(actions.map((a) => a.title), ['Exit with os._exit', 'Disable SNAP001 for this line', 'Disable SNAP001 for this file', 'Show documentation for SNAP001']);
    assert.equal(actions[0]!.preferred, true);
    const applied = String(facts.find((f) => f.kind === 'applied')?.text ?? '');
    assert.match(applied, /\n {8}sys\.stdout\.flush\(\); sys\.stderr\.flush\(\)\n {8}os\._exit\(0\) {2}# expect/);
    assert.match(applied, /^import logging\nimport os\nimport sys\n/);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

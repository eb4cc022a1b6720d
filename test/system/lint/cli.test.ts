/**
 * `node dist/cli.js lint` as CI runs it: exit codes 0/1/2, text/json/sarif output, SARIF 2.1.0
 * shape for GitHub code scanning, `--fix` rewriting files (valid Python after), `--config` and
 * workspace settings discovery.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import test from 'node:test';
import { fixtures, repoRoot } from '../../support/paths';

const cli = path.join(repoRoot, 'dist', 'cli.js');

function run(args: string[], cwd: string) {
  const r = spawnSync(process.execPath, [cli, 'lint', ...args], { cwd, encoding: 'utf8', timeout: 60_000 });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

function workspace(files: Record<string, string>): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dsw-cli-'));
  for (const [rel, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    fs.writeFileSync(path.join(dir, rel), text);
  }
  return dir;
}

const corpus = (rel: string) => fs.readFileSync(path.join(fixtures, 'lint', rel), 'utf8');

test('the CLI bundle exists (npm run build)', () => {
  assert.ok(fs.existsSync(cli), `${cli} is missing`);
});

test('exit 1 with error findings, 0 without, 2 on usage errors', () => {
  const dir = workspace({ 'pkg/snapshot.py': corpus('positives/capture_branch.py'), 'clean/tool.py': corpus('negatives/plain_cli.py') });
  try {
    const bad = run(['pkg'], dir);
    assert.equal(bad.code, 1, bad.err);
    assert.match(bad.out, /^pkg\/snapshot\.py:9:9: SNAP001 error: `raise SystemExit\(…\)` after a successful snapshot capture/m);
    assert.match(bad.out, /Found 1 problem \(1 error\)\.\n1 fixable with --fix\./);
    const clean = run(['clean'], dir);
    assert.equal(clean.code, 0, clean.out + clean.err);
    assert.match(clean.out, /No problems found\./);
    for (const args of [[], ['--format', 'xml', 'pkg'], ['--nope', 'pkg'], ['missing-folder'], ['--config', 'none.json', 'pkg']]) {
      const r = run(args, dir);
      assert.equal(r.code, 2, `${args.join(' ')} → ${r.code}: ${r.err}`);
      assert.match(r.err, /^dsw lint: /);
    }
    assert.equal(run(['--help'], dir).code, 0);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('warnings alone exit 0; severity settings from .vscode/settings.json apply', () => {
  const dir = workspace({ 'snapshot/hooks.py': corpus('positives/function_level.py') });
  try {
    const r = run(['.'], dir);
    assert.equal(r.code, 0, r.out);
    assert.match(r.out, /SNAP001 warning/);
    fs.mkdirSync(path.join(dir, '.vscode'));
    fs.writeFileSync(path.join(dir, '.vscode', 'settings.json'), '{\n  // promote\n  "dynamoSnapshot.lint.severity": { "SNAP001": "error" },\n}\n');
    assert.equal(run(['.'], dir).code, 1);
    fs.writeFileSync(path.join(dir, 'off.json'), JSON.stringify({ 'dynamoSnapshot.lint': { severity: { SNAP001: 'off' } } }));
    const off = run(['--config', 'off.json', '.'], dir);
    assert.equal(off.code, 0);
    assert.match(off.out, /No problems found/);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('--format json lists findings with 1-based positions and fixes', () => {
  const dir = workspace({ 'snapshot.py': corpus('positives/exit_forms.py') });
  try {
    const r = run(['--format', 'json', 'snapshot.py'], dir);
    assert.equal(r.code, 1);
    const rows = JSON.parse(r.out) as { path: string; code: string; line: number; column: number; fix: { applicability: string } | null }[];
    assert.equal(rows.length, 15);
    assert.deepEqual(rows[0], { ...rows[0], path: 'snapshot.py', code: 'SNAP001', line: 8, column: 13 });
    assert.equal(rows.filter((x) => x.fix?.applicability === 'safe').length, 9);
    assert.equal(rows.filter((x) => x.fix === null).length, 2);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('--format sarif is SARIF 2.1.0 with ruleId, level and 1-based regions', () => {
  const dir = workspace({ 'a/snapshot.py': corpus('positives/restore_path.py'), 'a/__main__.py': corpus('positives/standby_main.py') });
  try {
    const r = run(['--format', 'sarif', 'a'], dir);
    assert.equal(r.code, 1);
    const sarif = JSON.parse(r.out);
    assert.equal(sarif.version, '2.1.0');
    assert.match(sarif.$schema, /sarif-2\.1\.0/);
    const run0 = sarif.runs[0];
    assert.equal(run0.tool.driver.name, 'dynamo-snapshot-lint');
    assert.deepEqual(run0.tool.driver.rules.map((x: { id: string }) => x.id), ['SNAP001', 'SNAP002', 'SNAP003']);
    const results = run0.results as { ruleId: string; level: string; locations: { physicalLocation: { artifactLocation: { uri: string }; region: { startLine: number; startColumn: number } } }[] }[];
    assert.deepEqual(results.map((x) => x.ruleId).sort(), ['SNAP002', 'SNAP002', 'SNAP003', 'SNAP003', 'SNAP003']);
    const restore = results.find((x) => x.ruleId === 'SNAP002')!;
    assert.equal(restore.level, 'error');
    assert.deepEqual(restore.locations[0]!.physicalLocation.region, { startLine: 15, startColumn: 9, endLine: 15, endColumn: 20 });
    assert.equal(restore.locations[0]!.physicalLocation.artifactLocation.uri, 'a/snapshot.py');
    assert.equal(results.find((x) => x.ruleId === 'SNAP003')!.level, 'warning');
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('--fix rewrites files in place with safe fixes, reports what is left, output compiles', () => {
  const dir = workspace({ 'snapshot.py': corpus('positives/exit_forms.py'), 'ok.py': 'print("hi")\n' });
  try {
    const r = run(['--fix', '.'], dir);
    assert.equal(r.code, 1, 'unsafe and unfixable findings remain at error severity');
    assert.match(r.out, /Fixed 9 problems\./);
    assert.match(r.out, /Found 6 problems \(6 errors\)\./);
    const text = fs.readFileSync(path.join(dir, 'snapshot.py'), 'utf8');
    assert.equal(text, corpus('positives/exit_forms.py.fixed'));
    const c = spawnSync('python3', ['-m', 'py_compile', path.join(dir, 'snapshot.py')], { encoding: 'utf8' });
    if (c.error) assert.ok(process.env.DSW_REQUIRE_SYSTEM !== '1', 'python3 missing');
    else assert.equal(c.status, 0, c.stderr);
    assert.equal(fs.readFileSync(path.join(dir, 'ok.py'), 'utf8'), 'print("hi")\n');
    const again = run(['--fix', '.'], dir);
    assert.match(again.out, /Fixed 0 problems\./);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

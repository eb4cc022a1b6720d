/**
 * Partial parsing (src/lint/regions.ts) must not change a finding: over the whole corpus, padded with
 * a generated stdlib module before and after so the partial path is taken, the findings (messages,
 * ranges, fixes, related information) equal those of a whole-text parse.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import test from 'node:test';
import { analyze, lintRanges, parseForLint, type FileInfo } from '../../../src/lint/index';
import { topLevelStarts } from '../../../src/lint/regions';
import { DEFAULT_LINT_SETTINGS } from '../../../src/shared/lintSettings';
import { repoRoot } from '../../support/paths';
import { sharedParser } from './helpers';

const FIXTURES = path.join(repoRoot, 'test', 'fixtures', 'lint');
const FILE: FileInfo = { relPath: 'pkg/snapshot.py' };

function pyFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? pyFiles(path.join(dir, e.name)) : e.name.endsWith('.py') ? [path.join(dir, e.name)] : [],
  );
}

function generated(lines: number): string {
  const out = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'dsw-regions-')), 'gen.py');
  const r = spawnSync('python3', [path.join(repoRoot, 'bench', 'lint', 'generate.py'), String(lines), out], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  const text = fs.readFileSync(out, 'utf8');
  fs.rmSync(path.dirname(out), { recursive: true, force: true });
  return text;
}

async function both(text: string): Promise<{ whole: string; part: string; partial: boolean }> {
  const parser = await sharedParser();
  const full = parser.parse(text)!;
  const whole = JSON.stringify(analyze(full, text, FILE, DEFAULT_LINT_SETTINGS));
  full.delete();
  const { tree, partial } = parseForLint(parser, text);
  const part = JSON.stringify(analyze(tree!, text, FILE, DEFAULT_LINT_SETTINGS));
  tree!.delete();
  return { whole, part, partial };
}

test('partial parses give the findings of whole parses over the corpus, alone and padded', async () => {
  const filler = generated(1000);
  let partials = 0;
  let cases = 0;
  for (const f of pyFiles(FIXTURES)) {
    const src = fs.readFileSync(f, 'utf8');
    for (const text of [src, `${src}\n\n${filler}`, `${filler}\n\n${src}`, src.replace(/\n/g, '\r\n') + '\r\n' + filler.replace(/\n/g, '\r\n')]) {
      const r = await both(text);
      cases++;
      if (r.partial) partials++;
      assert.equal(r.part, r.whole, `${path.relative(FIXTURES, f)} (${text === src ? 'alone' : 'padded'})`);
    }
  }
  // The padded cases are mostly unrelated code: the partial path must actually be taken.
  assert.ok(partials > cases / 3, `${partials} of ${cases} cases parsed partially`);
});

test('generated modules: partial, a fraction of the text, same findings', async () => {
  for (const lines of [1000, 10_000]) {
    const text = generated(lines);
    const ranges = lintRanges(text);
    assert.ok(ranges, `${lines} lines: parsed partially`);
    const kept = ranges.reduce((s, r) => s + r.endIndex - r.startIndex, 0);
    assert.ok(kept < 0.5 * text.length);
    const r = await both(text);
    assert.equal(r.partial, true);
    assert.equal(r.part, r.whole);
    assert.ok(JSON.parse(r.part).length > 0);
  }
});

test('non-ASCII text before and on the flagged lines keeps positions', async () => {
  const text = [
    '"""Modul für Schnappschüsse — ünïcödé 🚀."""',
    'import sys',
    '',
    ...Array.from({ length: 40 }, (_, i) => `def helper_${i}(x):\n    """Ä ö ü 🚀 ${i}"""\n    return "ß" * x\n`),
    'async def main(c):',
    '    if not await c.wait_for_restore():',
    '        print("fertig 🚀"); sys.exit(0)  # ünïcödé',
    '',
  ].join('\n');
  const r = await both(text);
  assert.equal(r.partial, true);
  assert.equal(r.part, r.whole);
  assert.equal(JSON.parse(r.part).length, 1);
});

test('statement starts skip strings, brackets, continuations, clauses and decorated defs', () => {
  const text = [
    'x = """',
    'def not_a_statement():',
    '"""',
    'y = (1,',
    '2)',
    'z = 1 + \\',
    '3',
    'if x:',
    '    pass',
    'else:',
    '    pass',
    '@deco',
    '',
    'def f():  # "quote in a comment',
    "    return 'a\\'b'",
    'try:',
    '    pass',
    'except Exception:',
    '    pass',
    'finally:',
    '    pass',
    '# a comment',
    'w = 2',
  ].join('\n');
  const { rows } = topLevelStarts(text);
  assert.deepEqual(rows, [0, 3, 5, 7, 11, 15, 22]);
});

test('a cut that would split a statement falls back to the whole text', async () => {
  // An unterminated bracket: the scanner sees one long statement; a partial parse has an error.
  const text = `import sys\nvalues = (1,\n${'def f():\n    return 1\n'.repeat(200)}def g():\n    sys.exit(0)\n`;
  const parser = await sharedParser();
  const { tree, partial } = parseForLint(parser, text);
  assert.equal(partial, false);
  assert.equal(tree!.rootNode.endIndex, text.length);
  tree!.delete();
});

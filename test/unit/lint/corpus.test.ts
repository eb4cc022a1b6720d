/**
 * The corpus in test/fixtures/lint: for every case, the findings its `# expect:` comments state
 * (line, code, severity, fix applicability), the exact text after fix-all, that re-linting the fixed
 * text leaves only what had no safe fix, and that every fixed output compiles with CPython.
 */
import assert from 'node:assert/strict';
import test from 'node:test';
import { fixText, lintText } from '../../../src/lint/index';
import { DEFAULT_LINT_SETTINGS } from '../../../src/shared/lintSettings';
import { allCases, type Case } from './corpus';
import { pyCompile, pythonVersion, sharedParser } from './helpers';

const cases = allCases();

function summary(list: { line: number; code: string; severity: string; fix: string | null }[]): string[] {
  return list.map((f) => `${f.line + 1}:${f.code}:${f.severity}:${f.fix ?? 'no-fix'}`).sort();
}

test('the corpus covers every category the issue names', () => {
  const dirs = new Set(cases.map((c) => c.name.split('/')[0]));
  for (const d of ['positives', 'negatives', 'aliases', 'shadowing', 'handlers', 'multiline', 'halftyped', 'modern', 'suppression', 'imports']) {
    assert.ok(dirs.has(d), `no cases in ${d}/`);
  }
  assert.ok(cases.length >= 40, `only ${cases.length} cases`);
  assert.ok(cases.filter((c) => c.expected.length === 0).length >= 8, 'too few negative cases');
});

for (const c of cases) {
  test(`corpus ${c.name}`, async () => {
    const parser = await sharedParser();
    const file = { relPath: c.relPath };
    const got = lintText(parser, c.text, file, DEFAULT_LINT_SETTINGS).map((f) => ({
      line: f.range.start.line,
      code: f.code,
      severity: f.severity,
      fix: f.fix?.applicability ?? null,
    }));
    assert.deepEqual(summary(got), summary(c.expected), 'findings');

    const fixed = fixText(parser, c.text, file, DEFAULT_LINT_SETTINGS);
    assert.equal(fixed.text, c.fixed, c.hasFixedFile ? `fix-all output differs from ${c.name}.fixed` : 'fix-all changed a case without safe fixes');
    assert.equal(fixed.fixed, c.expected.filter((e) => e.fix === 'safe').length, 'number of rewrites');

    // Fixing is complete: what is left is exactly what had no safe fix.
    const left = lintText(parser, fixed.text, file, DEFAULT_LINT_SETTINGS).map((f) => `${f.code}:${f.severity}`).sort();
    const expectedLeft = c.expected.filter((e) => e.fix !== 'safe').map((e) => `${e.code}:${e.severity}`).sort();
    assert.deepEqual(left, expectedLeft, 'findings after fix-all');
  });
}

test('every case and every fixed output is valid Python (python3 -m py_compile)', (t) => {
  if (pythonVersion[0] === 0) {
    if (process.env.DSW_REQUIRE_SYSTEM === '1') assert.fail('python3 is missing');
    t.skip('python3 is not installed');
    return;
  }
  const runnable = (c: Case): boolean => !c.broken && (pythonVersion[0] > c.python[0] || (pythonVersion[0] === c.python[0] && pythonVersion[1] >= c.python[1]));
  const texts: Record<string, string> = {};
  for (const c of cases.filter(runnable)) {
    texts[c.name] = c.text;
    texts[`${c.name}.fixed`] = c.fixed;
  }
  assert.ok(Object.keys(texts).length >= 70, `only ${Object.keys(texts).length} texts compiled`);
  const errors = pyCompile(texts);
  assert.deepEqual([...errors.entries()], [], 'compile errors');
});

test('half-typed cases really are invalid Python, and still get their findings', () => {
  const broken = cases.filter((c) => c.broken);
  assert.ok(broken.length >= 3);
  const texts = Object.fromEntries(broken.map((c) => [c.name, c.text]));
  const errors = pyCompile(texts);
  for (const c of broken) {
    assert.ok(errors.has(c.name), `${c.name} compiles, so it is not half-typed`);
    assert.ok(c.expected.length > 0, `${c.name} expects findings`);
  }
});

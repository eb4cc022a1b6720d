/** Settings that change what the rules report: severity overrides, `include` globs, lenient parsing. */
import assert from 'node:assert/strict';
import test from 'node:test';
import { globToRegExp, matchesAny } from '../../../src/lint/glob';
import { lintText } from '../../../src/lint/index';
import { DEFAULT_LINT_SETTINGS, LintSettings, parseLintSettingsLenient } from '../../../src/shared/lintSettings';
import { sharedParser } from './helpers';

const CAPTURE = `import sys


async def run(c):
    if not await c.wait_for_restore():
        sys.exit(0)
    else:
        sys.exit(1)
`;

const PLAIN = `import sys


def checkpoint_now():
    sys.exit(0)
`;

test('severity overrides replace the default and "off" drops the rule', async () => {
  const p = await sharedParser();
  const base = lintText(p, CAPTURE, { relPath: 'a.py' }, DEFAULT_LINT_SETTINGS).map((f) => `${f.code}:${f.severity}`);
  assert.deepEqual(base, ['SNAP001:error', 'SNAP002:error']);
  const s = LintSettings.parse({ severity: { SNAP001: 'hint', SNAP002: 'off' } });
  assert.deepEqual(lintText(p, CAPTURE, { relPath: 'a.py' }, s).map((f) => `${f.code}:${f.severity}`), ['SNAP001:hint']);
});

test('include globs decide the function and module levels; outside them the rule is silent', async () => {
  const p = await sharedParser();
  assert.deepEqual(lintText(p, PLAIN, { relPath: 'tools/cli.py' }, DEFAULT_LINT_SETTINGS), []);
  const inSnapshot = lintText(p, PLAIN, { relPath: 'pkg/snapshot/cli.py' }, DEFAULT_LINT_SETTINGS);
  assert.deepEqual(inSnapshot.map((f) => `${f.code}:${f.severity}:${f.level}`), ['SNAP001:warning:function']);
  const custom = LintSettings.parse({ include: ['tools/*.py'] });
  assert.equal(lintText(p, PLAIN, { relPath: 'tools/cli.py' }, custom).length, 1);
  assert.equal(lintText(p, PLAIN, { relPath: 'tools/sub/cli.py' }, custom).length, 0);
  // An absolute path outside any workspace still matches `**/` patterns.
  assert.equal(lintText(p, PLAIN, { relPath: '/abs/x/snapshot.py', absPath: '/abs/x/snapshot.py' }, DEFAULT_LINT_SETTINGS).length, 1);
});

test('a file importing the Dynamo lifecycle is a snapshot module wherever it lives', async () => {
  const p = await sharedParser();
  const text = 'from dynamo.common.snapshot.lifecycle import EngineSnapshotController\nimport sys\nsys.exit(2)\n';
  assert.deepEqual(lintText(p, text, { relPath: 'x.py' }, DEFAULT_LINT_SETTINGS).map((f) => `${f.severity}:${f.level}`), ['information:module']);
});

test('glob dialect: **, *, ?, braces, classes', () => {
  assert.ok(globToRegExp('**/snapshot.py').test('snapshot.py'));
  assert.ok(globToRegExp('**/snapshot.py').test('a/b/snapshot.py'));
  assert.ok(!globToRegExp('**/snapshot.py').test('a/b/my_snapshot.py'));
  assert.ok(globToRegExp('**/snapshot/**/*.py').test('x/snapshot/y/z.py'));
  assert.ok(globToRegExp('**/snapshot/**/*.py').test('snapshot/z.py'));
  assert.ok(globToRegExp('src/{a,b}/?.py').test('src/b/c.py'));
  assert.ok(!globToRegExp('src/{a,b}/?.py').test('src/c/c.py'));
  assert.ok(globToRegExp('[ab]*.py').test('bx.py'));
  assert.ok(matchesAny(['**/snapshot.py'], 'pkg\\snapshot.py'), 'Windows separators are normalised');
});

test('lenient settings keep the valid keys and name each invalid one', () => {
  const r = parseLintSettingsLenient({ include: 'not-a-list', run: 'onSave', severity: { SNAP001: 'loud' }, bogus: 1 });
  assert.equal(r.settings.run, 'onSave');
  assert.deepEqual(r.settings.include, DEFAULT_LINT_SETTINGS.include);
  assert.deepEqual(r.settings.severity, {});
  assert.ok(r.problems.some((p) => p.startsWith('dynamoSnapshot.lint.include')), r.problems.join('\n'));
  assert.ok(r.problems.some((p) => p.startsWith('dynamoSnapshot.lint.severity.SNAP001')), r.problems.join('\n'));
  assert.ok(r.problems.some((p) => p.includes('bogus')), r.problems.join('\n'));
  assert.deepEqual(parseLintSettingsLenient(null), { settings: DEFAULT_LINT_SETTINGS, problems: [] });
  assert.equal(parseLintSettingsLenient([1]).problems.length, 1);
});

test('an include glob that cannot compile is a settings problem naming the setting, never a crash', async () => {
  for (const bad of ['**/{snapshot.py', 'src/[z-a].py']) {
    assert.doesNotThrow(() => matchesAny([bad], 'snapshot.py'));
    assert.equal(matchesAny([bad], 'snapshot.py'), false);
    const r = LintSettings.safeParse({ include: [bad] });
    assert.ok(!r.success);
    assert.deepEqual(r.error.issues[0]!.path, ['include', 0]);
    assert.match(r.error.issues[0]!.message, /not a valid glob/);
    const lenient = parseLintSettingsLenient({ include: [bad], run: 'onSave' });
    assert.deepEqual(lenient.settings.include, DEFAULT_LINT_SETTINGS.include);
    assert.equal(lenient.settings.run, 'onSave');
    assert.match(lenient.problems.join('\n'), /^dynamoSnapshot\.lint\.include\.0: .*not a valid glob/m);
  }
  // analyze() with such a glob (e.g. from a client that skips validation) lints instead of throwing.
  const p = await sharedParser();
  assert.equal(lintText(p, PLAIN, { relPath: 'tools/cli.py' }, { include: ['{tools/*.py'], severity: {} }).length, 0);
  assert.equal(globToRegExp('src/{a,b}/[!x].py').test('src/a/y.py'), true);
});

/** `dsw lint --config`: the shapes of settings it accepts, JSONC, discovery, and errors naming the setting. */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import test from 'node:test';
import { ConfigError, lintSection, loadConfig } from '../../../src/lint/cli/config';
import { stripJsonc } from '../../../src/shared/jsonc';

test('JSONC: comments and trailing commas are stripped, strings kept', () => {
  const text = '{\n  // a comment\n  "a": "http://x/*y*/", /* block */\n  "b": [1, 2,],\n}';
  assert.deepEqual(JSON.parse(stripJsonc(text)), { a: 'http://x/*y*/', b: [1, 2] });
  // A comma before a bracket inside a string is part of the value (a glob with an empty alternative).
  const globs = '{"dynamoSnapshot.lint.include": ["**/{snapshot,}.py", "a,]", "q\\",}"], /* c */ "x": {"y": 1, // z\n},}';
  assert.deepEqual(JSON.parse(stripJsonc(globs)), { 'dynamoSnapshot.lint.include': ['**/{snapshot,}.py', 'a,]', 'q",}'], x: { y: 1 } });
});

test('dotted keys, a section object and nested objects all give the lint section', () => {
  assert.deepEqual(lintSection({ 'dynamoSnapshot.lint.include': ['a'], 'dynamoSnapshot.lint.codeAction.fixViolation.enable': false, 'editor.x': 1 }), {
    include: ['a'],
    codeAction: { fixViolation: { enable: false } },
  });
  assert.deepEqual(lintSection({ 'dynamoSnapshot.lint': { run: 'onSave' } }), { run: 'onSave' });
  assert.deepEqual(lintSection({ dynamoSnapshot: { lint: { severity: { SNAP001: 'off' } } } }), { severity: { SNAP001: 'off' } });
  assert.throws(() => lintSection([1]), ConfigError);
});

test('discovers .vscode/settings.json above the folder; globs are relative to the workspace', () => {
  const ws = fs.mkdtempSync(path.join(os.tmpdir(), 'dsw-cfg-'));
  try {
    fs.mkdirSync(path.join(ws, '.vscode'));
    fs.mkdirSync(path.join(ws, 'src', 'deep'), { recursive: true });
    fs.writeFileSync(path.join(ws, '.vscode', 'settings.json'), '{ "dynamoSnapshot.lint.include": ["src/**/*.py"], // mine\n}');
    const c = loadConfig(undefined, path.join(ws, 'src', 'deep'));
    assert.deepEqual(c.settings.include, ['src/**/*.py']);
    assert.equal(c.root, ws);
    fs.writeFileSync(path.join(ws, 'bad.json'), '{"dynamoSnapshot.lint.severity": {"SNAP001": "loud"}}');
    assert.throws(() => loadConfig('bad.json', ws), /setting dynamoSnapshot\.lint\.severity\.SNAP001/);
    assert.throws(() => loadConfig('missing.json', ws), /cannot read/);
  } finally {
    fs.rmSync(ws, { recursive: true, force: true });
  }
});

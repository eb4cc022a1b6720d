/** Checks on package.json that need no VS Code (the host test checks command registration). */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import test from 'node:test';
import { repoRoot } from '../../support/paths';

const root = repoRoot;
const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
const props: Record<string, { description?: string; markdownDescription?: string }> = pkg.contributes.configuration.properties;

test('@types/vscode is the engines.vscode floor, and the minimum test host runs that floor', () => {
  // A newer API is used behind a version check (src/ui/compat.ts), never through newer types:
  // types newer than the floor would let code call what the oldest VS Code we admit lacks.
  const floor = /^\^(\d+)\.(\d+)\.0$/.exec(pkg.engines.vscode);
  assert.ok(floor, `engines.vscode ${pkg.engines.vscode} is a ^major.minor.0 range`);
  assert.equal(pkg.devDependencies['@types/vscode'], `${floor[1]}.${floor[2]}.0`);
  // code-server 4.X.Y bundles VS Code 1.X.Y; scripts/run-integration.mjs checks the version the host reports.
  const host = (dir: string): string => JSON.parse(fs.readFileSync(path.join(root, dir, 'package.json'), 'utf8')).dependencies['code-server'];
  assert.match(host('test/vscode-host'), new RegExp(`^4\\.${floor[2]}\\.\\d+$`), 'the minimum host pins the engines.vscode floor');
  assert.ok(Number(host('test/vscode-host/newest').split('.')[1]) > Number(floor[2]), 'the newest host is newer than the floor');
});

test('every command is in the "Dynamo Snapshot" category with an id under dynamoSnapshot.', () => {
  for (const c of pkg.contributes.commands) {
    assert.equal(c.category, 'Dynamo Snapshot', c.command);
    assert.match(c.command, /^dynamoSnapshot\./);
  }
});

test('menus and welcome views only name contributed commands', () => {
  const ids = new Set(pkg.contributes.commands.map((c: { command: string }) => c.command));
  for (const [where, items] of Object.entries(pkg.contributes.menus as Record<string, { command: string }[]>)) {
    for (const item of items) assert.ok(ids.has(item.command), `${where} names ${item.command}`);
  }
  for (const w of pkg.contributes.viewsWelcome) {
    for (const m of w.contents.matchAll(/command:([\w.]+)/g)) assert.ok(ids.has(m[1]), `welcome view names ${m[1]}`);
  }
});

test('untrusted workspaces: every setting naming a host, executable, command or path is restricted', () => {
  const restricted: string[] = pkg.capabilities.untrustedWorkspaces.restrictedConfigurations;
  assert.equal(pkg.capabilities.untrustedWorkspaces.supported, 'limited');
  for (const key of restricted) assert.ok(props[key], `${key} is a contributed setting`);
  const risky = Object.entries(props)
    .filter(([key, p]) => /workers|path|configFile|kubeconfig|directory|include|defaultWorker/.test(key) || /executable|command/i.test(p.description ?? ''))
    .map(([key]) => key);
  for (const key of risky) assert.ok(restricted.includes(key), `${key} must be in restrictedConfigurations`);
});

test('activation: implied by commands and views, plus Python files and restored log editors; never "*"', () => {
  assert.deepEqual(pkg.activationEvents, ['onLanguage:python', 'onFileSystem:dynamo-snapshot-log']);
});

test('.vscodeignore is an allow-list that ships no sources and no node_modules', () => {
  const lines = fs.readFileSync(path.join(root, '.vscodeignore'), 'utf8').split('\n').filter((l) => l && !l.startsWith('#'));
  assert.equal(lines[0], '**');
  for (const l of lines.slice(1)) {
    assert.ok(l.startsWith('!'), l);
    assert.doesNotMatch(l, /node_modules|src\/|\.ts$/);
  }
});

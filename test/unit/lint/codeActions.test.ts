/**
 * The server's code actions without a client: the fix (preferred only when safe), line and file
 * suppression, documentation, the settings that hide each kind, fix-all, and that applying each edit
 * really silences or fixes the finding.
 */
import assert from 'node:assert/strict';
import test from 'node:test';
import type { CodeAction, CodeActionParams, Diagnostic, TextDocumentEdit } from 'vscode-languageserver';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { analyze } from '../../../src/lint/analyze';
import { applyEdits } from '../../../src/lint/edits';
import type { TextEdit } from '../../../src/lint/types';
import { codeActions, FIX_ALL_KIND } from '../../../src/server/codeActions';
import { toDiagnostic } from '../../../src/server/convert';
import { DEFAULT_LINT_SETTINGS, LintSettings } from '../../../src/shared/lintSettings';
import { sharedParser } from './helpers';

const TEXT = `#!/usr/bin/env python3
import sys


async def run(c):
    if not await c.wait_for_restore():
        sys.exit(0)
        try:
            sys.exit(2)
        except SystemExit:
            pass
`;

async function setup(settings: LintSettings = DEFAULT_LINT_SETTINGS, text = TEXT) {
  const parser = await sharedParser();
  const doc = TextDocument.create('file:///w/snapshot.py', 'python', 3, text);
  const tree = parser.parse(text)!;
  const findings = analyze(tree, text, { relPath: 'snapshot.py' }, settings);
  const diagnostics = findings.map((f) => toDiagnostic(f, doc.uri));
  return { doc, tree, findings, diagnostics, ctx: { doc, analysis: { findings, tree, settings }, documentChanges: true } };
}

function params(doc: TextDocument, diagnostics: Diagnostic[], only?: string[]): CodeActionParams {
  return { textDocument: { uri: doc.uri }, range: diagnostics[0]?.range ?? { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } }, context: { diagnostics, only } };
}

function editsOf(a: CodeAction): TextEdit[] {
  const dc = a.edit?.documentChanges?.[0] as TextDocumentEdit | undefined;
  assert.ok(dc, `${a.title} has documentChanges`);
  assert.equal(dc.textDocument.version, 3, 'edits carry the document version');
  return dc.edits as TextEdit[];
}

async function relint(text: string): Promise<string[]> {
  const parser = await sharedParser();
  const tree = parser.parse(text)!;
  try {
    return analyze(tree, text, { relPath: 'snapshot.py' }, DEFAULT_LINT_SETTINGS).map((f) => `${f.range.start.line}:${f.code}`);
  } finally {
    tree.delete();
  }
}

test('diagnostics carry code, documentation link, source, related information and fix data', async () => {
  const { diagnostics } = await setup();
  assert.equal(diagnostics.length, 2);
  const [safe, unsafe] = diagnostics as [Diagnostic, Diagnostic];
  assert.equal(safe.code, 'SNAP001');
  assert.equal(safe.source, 'dynamo-snapshot');
  assert.match(safe.codeDescription!.href, /^file:\/\/.*\/docs\/rules\/SNAP001\.md$/);
  assert.equal(safe.relatedInformation, undefined);
  assert.match(unsafe.relatedInformation![0]!.message, /catches the SystemExit/);
});

test('quick fixes: preferred safe fix, unsafe fix titled so, line/file noqa, documentation', async () => {
  const { doc, diagnostics, ctx } = await setup();
  const actions = codeActions(params(doc, diagnostics), ctx);
  const titles = actions.map((a) => `${a.title}${a.isPreferred ? ' *' : ''}`);
  assert.deepEqual(titles, [
    'Exit with os._exit *',
    'Disable SNAP001 for this line',
    'Disable SNAP001 for this file',
    'Show documentation for SNAP001',
    'Exit with os._exit (unsafe)',
    'Disable SNAP001 for this line',
  ]);
  const text = doc.getText();
  const fixed = applyEdits(text, editsOf(actions[0]!));
  assert.match(fixed, /^#!\/usr\/bin\/env python3\nimport sys\nimport os\n/);
  assert.deepEqual(await relint(fixed), ['10:SNAP001'], 'the fixed exit is gone, the other stays');
  const line = applyEdits(text, editsOf(actions[1]!));
  assert.match(line, /sys\.exit\(0\) {2}# noqa: SNAP001\n/);
  assert.deepEqual(await relint(line), ['8:SNAP001']);
  const file = applyEdits(text, editsOf(actions[2]!));
  assert.match(file, /^#!\/usr\/bin\/env python3\n# dynamo-snapshot: noqa: SNAP001\nimport sys/);
  assert.deepEqual(await relint(file), []);
  assert.equal(actions[3]!.command?.command, 'snapshotLint.showDocumentation');
  assert.deepEqual(actions[3]!.command?.arguments, ['SNAP001']);
});

test('an existing noqa list gets the code appended; a line ending inside a string gets no line action', async () => {
  const text = 'import sys\nasync def run(c):\n    if not await c.wait_for_restore():\n        sys.exit(0)  # noqa: E501\n        sys.exit("""a\n        b""")\n';
  const { doc, diagnostics, ctx } = await setup(DEFAULT_LINT_SETTINGS, text);
  assert.equal(diagnostics.length, 2);
  const first = codeActions(params(doc, [diagnostics[0]!]), ctx).find((a) => a.title === 'Disable SNAP001 for this line')!;
  assert.equal(applyEdits(text, editsOf(first)).split('\n')[3], '        sys.exit(0)  # noqa: E501, SNAP001');
  const second = codeActions(params(doc, [diagnostics[1]!]), ctx).map((a) => a.title);
  assert.ok(!second.includes('Disable SNAP001 for this line'), second.join(', '));
});

test('each code-action kind can be hidden by its setting', async () => {
  const settings = LintSettings.parse({
    codeAction: { fixViolation: { enable: false }, disableRuleComment: { enable: false }, showDocumentation: { enable: true } },
  });
  const { doc, diagnostics, ctx } = await setup(settings);
  assert.deepEqual(codeActions(params(doc, diagnostics), ctx).map((a) => a.title), ['Show documentation for SNAP001']);
});

test('source.fixAll.dynamoSnapshot applies safe fixes only, with one import, and only when asked', async () => {
  const { doc, diagnostics, ctx } = await setup();
  assert.equal(codeActions(params(doc, diagnostics), ctx).filter((a) => a.kind === FIX_ALL_KIND).length, 0);
  const all = codeActions(params(doc, [], [FIX_ALL_KIND]), ctx);
  assert.equal(all.length, 1);
  assert.equal(all[0]!.kind, 'source.fixAll.dynamoSnapshot');
  const fixed = applyEdits(doc.getText(), editsOf(all[0]!));
  assert.equal(fixed.match(/import os/g)?.length, 1);
  assert.deepEqual(await relint(fixed), ['10:SNAP001'], 'the unsafe one is left for a person');
  assert.equal(codeActions(params(doc, [], ['source.fixAll']), ctx).length, 1, 'a parent kind includes ours');
  assert.equal(codeActions(params(doc, [], ['source.organizeImports']), ctx).length, 0);
});

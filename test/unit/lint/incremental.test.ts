/**
 * The server's document store: LSP incremental changes become tree-sitter edits, and the re-parsed
 * tree equals a fresh parse of the new text (also with non-ASCII text, where UTF-16 offsets matter);
 * files without exit-like names are never parsed.
 */
import assert from 'node:assert/strict';
import test from 'node:test';
import { analyze } from '../../../src/lint/analyze';
import { DEFAULT_LINT_SETTINGS } from '../../../src/shared/lintSettings';
import { DocumentStore } from '../../../src/server/documents';
import { sharedParser } from './helpers';
import type { TextDocumentContentChangeEvent } from 'vscode-languageserver';
import { TextDocument } from 'vscode-languageserver-textdocument';

const BASE = `import sys
x = "é😀 ünïcode"  # 🚀


async def run(c):
    if not await c.wait_for_restore():
        sys.exit(0)
`;

type Change = TextDocumentContentChangeEvent;

function open(text: string): TextDocument {
  return TextDocument.create('file:///t/snapshot.py', 'python', 1, text);
}

function change(store: DocumentStore, doc: TextDocument, changes: Change[]): TextDocument {
  return store.applyChanges(doc, changes, doc.version + 1);
}

/** A deterministic pseudo-random sequence (no flaky failures, same edits every run). */
function rng(seed: number): () => number {
  let s = seed;
  return () => ((s = (s * 1103515245 + 12345) % 2147483648) / 2147483648);
}

test('incremental edits re-parse to the same tree as a full parse, 300 random edits', async () => {
  const parser = await sharedParser();
  const store = new DocumentStore(parser);
  let doc = open(BASE);
  store.treeFor(doc);
  const rand = rng(7);
  const pieces = ['é', '😀', 'x', '\n', '    ', '(', ')', 'exit', 'sys.exit(1)\n', '\r\n', ''];
  for (let i = 0; i < 300; i++) {
    const text = doc.getText();
    const a = Math.floor(rand() * (text.length + 1));
    const b = Math.min(text.length, a + Math.floor(rand() * 4));
    // Never split a surrogate pair: an LSP client never sends such a range.
    const safe = (o: number): number => (o > 0 && o < text.length && /[\uDC00-\uDFFF]/.test(text[o]!) ? o - 1 : o);
    const [s, e] = [safe(a), safe(b)];
    doc = change(store, doc, [{ range: { start: doc.positionAt(s), end: doc.positionAt(e) }, text: pieces[Math.floor(rand() * pieces.length)]! + 'exit' }]);
    const incremental = store.treeFor(doc)!;
    const fresh = parser.parse(doc.getText())!;
    assert.equal(incremental.rootNode.toString(), fresh.rootNode.toString(), `edit ${i} diverged`);
    fresh.delete();
  }
  assert.equal(store.treeCount, 1);
});

test('several changes in one notification, and findings follow the edit', async () => {
  const parser = await sharedParser();
  const store = new DocumentStore(parser);
  let doc = open(BASE);
  const before = analyze(store.treeFor(doc)!, doc.getText(), { relPath: 'snapshot.py' }, DEFAULT_LINT_SETTINGS);
  assert.equal(before.length, 1);
  assert.equal(before[0]!.range.start.character, 8);
  // Insert a line above and change the exit code, in one batch (positions refer to the text after the previous change).
  doc = change(store, doc, [
    { range: { start: { line: 1, character: 0 }, end: { line: 1, character: 0 } }, text: 'y = "😀"\n' },
    { range: { start: { line: 7, character: 17 }, end: { line: 7, character: 18 } }, text: '9' },
  ]);
  const after = analyze(store.treeFor(doc)!, doc.getText(), { relPath: 'snapshot.py' }, DEFAULT_LINT_SETTINGS);
  assert.equal(after.length, 1);
  assert.equal(after[0]!.range.start.line, 7);
  assert.match(after[0]!.fix!.edit.newText, /os\._exit\(9\)/);
});

test('a file with no exit-like name is never parsed, and loses its tree when the name goes away', async () => {
  const parser = await sharedParser();
  const store = new DocumentStore(parser);
  const quiet = open('import os\nprint("hello")\n');
  assert.equal(store.treeFor(quiet), undefined);
  assert.equal(store.treeCount, 0);
  let doc = open(BASE);
  assert.ok(store.treeFor(doc));
  assert.equal(store.treeCount, 1);
  doc = change(store, doc, [{ text: 'print(1)\n' }]);
  assert.equal(store.treeFor(doc), undefined);
  assert.equal(store.treeCount, 0);
});

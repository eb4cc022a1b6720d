/**
 * Open documents with one syntax tree each, kept current incrementally (python-analysis.md §6.1):
 * every LSP change is turned into a tree-sitter `Edit` against the text before the change, and the
 * next validation re-parses with the edited tree. Until a document is first edited only the statements
 * the rules need are parsed (regions.ts: an open costs a fraction of a full parse); the first edit
 * parses it whole. Documents that fail the pre-filter hold no tree.
 */
import { TextDocuments, type TextDocumentContentChangeEvent } from 'vscode-languageserver';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { performance } from 'node:perf_hooks';
import { Edit, type ParseState, type Parser, type Point, type Tree } from 'web-tree-sitter';
import { mayHaveFindings } from '../lint/analyze';
import { parseForLint } from '../lint/regions';

/** Thrown when a parse passes its deadline; the document is left without findings until it changes. */
export class ParseTimeout extends Error {}

interface TreeState {
  tree: Tree;
  /** The tree has edits applied but is not re-parsed yet. */
  stale: boolean;
  /** Only the statements the rules need were parsed (regions.ts): never edited, parsed afresh. */
  partial: boolean;
}

function endPoint(start: Point, text: string): Point {
  const lines = text.split('\n');
  if (lines.length === 1) return { row: start.row, column: start.column + text.length };
  return { row: start.row + lines.length - 1, column: lines[lines.length - 1]!.length };
}

export class DocumentStore {
  private readonly trees = new Map<string, TreeState>();
  /** Documents being edited: parsed whole from now on, so each keystroke re-parses incrementally. */
  private readonly edited = new Set<string>();
  readonly documents: TextDocuments<TextDocument>;

  constructor(private readonly parser: Parser) {
    this.documents = new TextDocuments<TextDocument>({
      create: (uri, languageId, version, content) => TextDocument.create(uri, languageId, version, content),
      update: (doc, changes, version) => this.applyChanges(doc, changes, version),
    });
  }

  /** Applies LSP changes to `doc` and, when the document has a tree, the matching tree edits. */
  applyChanges(doc: TextDocument, changes: TextDocumentContentChangeEvent[], version: number): TextDocument {
    for (const change of changes) {
      const state = this.trees.get(doc.uri);
      if (state?.partial) {
        // A partial tree cannot be edited: the next validation parses the whole text once, and
        // later edits reuse that tree (incremental re-parse beats a fresh partial parse while typing).
        this.drop(doc.uri);
        this.edited.add(doc.uri);
      } else if (state && 'range' in change) {
        const startIndex = doc.offsetAt(change.range.start);
        const startPosition = { row: change.range.start.line, column: change.range.start.character };
        state.tree.edit(
          new Edit({
            startIndex,
            oldEndIndex: doc.offsetAt(change.range.end),
            newEndIndex: startIndex + change.text.length,
            startPosition,
            oldEndPosition: { row: change.range.end.line, column: change.range.end.character },
            newEndPosition: endPoint(startPosition, change.text),
          }),
        );
        state.stale = true;
      } else if (state) {
        // A full-text change: nothing of the old tree can be reused.
        this.drop(doc.uri);
      }
      doc = TextDocument.update(doc, [change], version);
    }
    return doc;
  }

  /**
   * The current tree for `doc`, parsing only if the pre-filter passes (`undefined` means the file has
   * no exit-like name and cannot have findings).
   */
  treeFor(doc: TextDocument, deadlineMs = Infinity): Tree | undefined {
    const text = doc.getText();
    if (!mayHaveFindings(text)) {
      this.drop(doc.uri);
      return undefined;
    }
    const state = this.trees.get(doc.uri);
    if (state && !state.stale) return state.tree;
    const deadline = performance.now() + deadlineMs;
    // tree-sitter stops when the progress callback returns true (the typings say void).
    const progressCallback = (() => performance.now() > deadline) as unknown as (s: ParseState) => void;
    // A document whose whole tree is kept (it once failed the partial cut, e.g. while half-typed) is
    // re-parsed incrementally; otherwise only the statements the rules need are parsed.
    const { tree, partial } = parseForLint(this.parser, text, {
      oldTree: state?.tree ?? null,
      partial: !this.edited.has(doc.uri),
      progressCallback: Number.isFinite(deadlineMs) ? progressCallback : undefined,
    });
    if (!tree) {
      // A cancelled parse would resume on the next call; start the next one afresh.
      this.parser.reset();
      this.drop(doc.uri);
      throw new ParseTimeout(`parsing ${doc.uri} took over ${deadlineMs} ms; skipped`);
    }
    state?.tree.delete();
    this.trees.set(doc.uri, { tree, stale: false, partial });
    return tree;
  }

  /** The document is closed: forget it. */
  close(uri: string): void {
    this.drop(uri);
    this.edited.delete(uri);
  }

  drop(uri: string): void {
    this.trees.get(uri)?.tree.delete();
    this.trees.delete(uri);
  }

  get treeCount(): number {
    return this.trees.size;
  }
}

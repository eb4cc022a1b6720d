/**
 * Suppression comments in ruff's shape (python-analysis.md §6.8):
 *   - line: `# noqa` or `# noqa: SNAP001[, SNAP002]` on the flagged line (`noqa` case-insensitive);
 *   - file: an own-line `# dynamo-snapshot: noqa` (every rule) or `# dynamo-snapshot: noqa: SNAP001`.
 * Only real comments count: a `#` inside a string is checked against the tree.
 */
import type { Node, Tree } from 'web-tree-sitter';

const LINE_NOQA = /#\s*noqa(?::\s*([A-Z]+[0-9]+(?:[,\s]+[A-Z]+[0-9]+)*))?/i;
const FILE_NOQA = /^[ \t]*#\s*dynamo-snapshot:\s*noqa(?::\s*([A-Z]+[0-9]+(?:[,\s]+[A-Z]+[0-9]+)*))?\s*$/gim;

function codes(list: string | undefined): Set<string> | 'all' {
  if (!list) return 'all';
  return new Set(list.split(/[,\s]+/).filter(Boolean).map((c) => c.toUpperCase()));
}

function isComment(tree: Tree, index: number): boolean {
  const n = tree.rootNode.descendantForIndex(index, index + 1);
  return n?.type === 'comment';
}

/** Codes silenced for the whole file (`'all'` for a bare file-level noqa). */
export function fileSuppressions(tree: Tree, text: string): Set<string> | 'all' {
  const out = new Set<string>();
  FILE_NOQA.lastIndex = 0;
  for (let m = FILE_NOQA.exec(text); m; m = FILE_NOQA.exec(text)) {
    const hash = m.index + m[0].indexOf('#');
    if (!isComment(tree, hash)) continue;
    const c = codes(m[1]);
    if (c === 'all') return 'all';
    for (const x of c) out.add(x);
  }
  return out;
}

export interface LineNoqa {
  /** The comment node holding `noqa` (for the "add a code" action). */
  comment: Node;
  codes: Set<string> | 'all';
  /** Offsets of the `noqa[: codes]` part inside the document. */
  start: number;
  end: number;
}

/** The `# noqa` on zero-based `line`, if any. */
export function lineNoqa(tree: Tree, text: string, lineStart: number, lineEnd: number): LineNoqa | undefined {
  const line = text.slice(lineStart, lineEnd);
  for (let from = line.indexOf('#'); from >= 0; from = line.indexOf('#', from + 1)) {
    const n = tree.rootNode.descendantForIndex(lineStart + from, lineStart + from + 1);
    if (n?.type !== 'comment') continue;
    const m = LINE_NOQA.exec(n.text);
    if (!m) return undefined;
    const start = n.startIndex + m.index;
    return { comment: n, codes: codes(m[1]), start, end: start + m[0].length };
  }
  return undefined;
}

export function silences(s: Set<string> | 'all', code: string): boolean {
  return s === 'all' || s.has(code);
}

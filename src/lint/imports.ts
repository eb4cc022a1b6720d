/**
 * Where `import os` goes (python-analysis.md §6.6): after the last import of the file's leading import
 * block; else after the last `from __future__`; else after the module docstring; else after the
 * shebang/encoding comments; else at line 0. Never inside `if TYPE_CHECKING:` or a `try:` import block.
 */
import type { Node } from 'web-tree-sitter';
import type { ImportNeed, TextEdit } from './types';

const HEADER_COMMENT = /^#!|^#.*coding[:=]/;

function anchor(root: Node): Node | null {
  let header: Node | null = null;
  let docstring: Node | null = null;
  let future: Node | null = null;
  let lastImport: Node | null = null;
  let seenStatement = false;
  for (const c of root.namedChildren) {
    if (c.type === 'comment') {
      if (!seenStatement && HEADER_COMMENT.test(c.text)) header = c;
      continue;
    }
    if (!seenStatement && c.type === 'expression_statement' && c.namedChildCount === 1 && c.namedChild(0)!.type === 'string') {
      docstring = c;
      seenStatement = true;
      continue;
    }
    seenStatement = true;
    if (c.type === 'future_import_statement') future = c;
    else if (c.type === 'import_statement' || c.type === 'import_from_statement') lastImport = c;
    else break;
  }
  return lastImport ?? future ?? docstring ?? header;
}

export function importLines(needs: readonly ImportNeed[]): string[] {
  const seen = new Set<string>();
  const lines: string[] = [];
  for (const n of [...needs].sort((a, b) => a.module.localeCompare(b.module))) {
    const line = n.name === n.module ? `import ${n.module}` : `import ${n.module} as ${n.name}`;
    if (!seen.has(line)) lines.push(line);
    seen.add(line);
  }
  return lines;
}

/** One edit adding every needed import, or undefined when none is needed. */
export function importEdit(root: Node, text: string, eol: string, needs: readonly ImportNeed[]): TextEdit | undefined {
  const lines = importLines(needs);
  if (lines.length === 0) return undefined;
  const after = anchor(root);
  const block = lines.map((l) => l + eol).join('');
  if (!after) return { range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } }, newText: block };
  const { row, column } = after.endPosition;
  // The anchor ends the file without a newline: start a new line first.
  const rest = text.slice(after.endIndex);
  if (!/[\r\n]/.test(rest)) {
    const at = { line: row, character: column + rest.length };
    return { range: { start: at, end: at }, newText: eol + block.slice(0, -eol.length) };
  }
  const at = { line: row + 1, character: 0 };
  return { range: { start: at, end: at }, newText: block };
}

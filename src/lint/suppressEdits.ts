/**
 * Edits behind "Disable SNAPnnn for this line" and "… for this file": add the code to an existing
 * `# noqa: …` list or append `  # noqa: CODE` at the end of the line; add an own-line
 * `# dynamo-snapshot: noqa: CODE` below any shebang/encoding lines. A line that ends inside a string
 * or with a backslash continuation cannot take a comment, so it gets no line action.
 */
import type { Tree } from 'web-tree-sitter';
import { TOOL } from './rules';
import { lineNoqa } from './suppress';
import type { TextEdit } from './types';

function lineSpan(text: string, line: number): [number, number] | undefined {
  let start = 0;
  for (let i = 0; i < line; i++) {
    const nl = text.indexOf('\n', start);
    if (nl < 0) return undefined;
    start = nl + 1;
  }
  const nl = text.indexOf('\n', start);
  let end = nl < 0 ? text.length : nl;
  if (end > start && text[end - 1] === '\r') end--;
  return [start, end];
}

export function noqaLineEdit(tree: Tree, text: string, line: number, code: string): TextEdit | undefined {
  const span = lineSpan(text, line);
  if (!span) return undefined;
  const [start, end] = span;
  const existing = lineNoqa(tree, text, start, end);
  if (existing) {
    if (existing.codes === 'all' || existing.codes.has(code)) return undefined;
    const at = { line, character: existing.end - start };
    return { range: { start: at, end: at }, newText: `, ${code}` };
  }
  const body = text.slice(start, end);
  const trimmed = body.replace(/[ \t]+$/, '');
  if (trimmed.endsWith('\\')) return undefined;
  if (trimmed.length > 0) {
    const last = tree.rootNode.descendantForIndex(start + trimmed.length - 1, start + trimmed.length);
    for (let n = last; n; n = n.parent) if (n.type === 'string') return undefined;
  }
  const at = { line, character: trimmed.length };
  const to = { line, character: body.length };
  return { range: { start: at, end: to }, newText: `${trimmed.length > 0 ? '  ' : ''}# noqa: ${code}` };
}

export function noqaFileEdit(text: string, code: string): TextEdit {
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  let line = 0;
  const lines = text.split('\n', 3);
  while (line < 2 && line < lines.length && /^#!|^#.*coding[:=]/.test(lines[line]!)) line++;
  const at = { line, character: 0 };
  return { range: { start: at, end: at }, newText: `# ${TOOL}: noqa: ${code}${eol}` };
}

/**
 * Applying fixes to text: fix-all picks one fix per finding (safe ones, or unsafe too on request),
 * drops overlapping rewrites, and merges every needed import into one insertion so `import os` is
 * added once.
 */
import type { Tree } from 'web-tree-sitter';
import { importEdit } from './imports';
import type { Finding, ImportNeed, Position, TextEdit } from './types';

function lineOffsets(text: string): number[] {
  const out = [0];
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) out.push(i + 1);
  return out;
}

export function offsetAt(offsets: number[], text: string, p: Position): number {
  const start = offsets[p.line];
  if (start === undefined) return text.length;
  return Math.min(start + p.character, text.length);
}

/** Applies non-overlapping edits (LSP semantics: all ranges refer to the original text). */
export function applyEdits(text: string, edits: readonly TextEdit[]): string {
  const offsets = lineOffsets(text);
  const spans = edits
    .map((e, i) => ({ s: offsetAt(offsets, text, e.range.start), e: offsetAt(offsets, text, e.range.end), t: e.newText, i }))
    .sort((a, b) => a.s - b.s || a.e - b.e || a.i - b.i);
  let out = '';
  let at = 0;
  for (const sp of spans) {
    if (sp.s < at) throw new Error('overlapping edits');
    out += text.slice(at, sp.s) + sp.t;
    at = sp.e;
  }
  return out + text.slice(at);
}

/** The edits of a fix-all: one rewrite per fixable finding plus a single import insertion. */
export function fixAllEdits(findings: readonly Finding[], tree: Tree, text: string, opts: { unsafe?: boolean } = {}): TextEdit[] {
  const offsets = lineOffsets(text);
  const chosen = findings
    .filter((f) => f.fix && (f.fix.applicability === 'safe' || opts.unsafe))
    .map((f) => f.fix!)
    .sort((a, b) => offsetAt(offsets, text, a.edit.range.start) - offsetAt(offsets, text, b.edit.range.start));
  const edits: TextEdit[] = [];
  const needs: ImportNeed[] = [];
  let end = -1;
  for (const fix of chosen) {
    const s = offsetAt(offsets, text, fix.edit.range.start);
    if (s < end) continue; // nested in a rewrite already taken
    end = offsetAt(offsets, text, fix.edit.range.end);
    edits.push(fix.edit);
    needs.push(...fix.imports);
  }
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  const imp = importEdit(tree.rootNode, text, eol, needs);
  return imp ? [imp, ...edits] : edits;
}

/**
 * The lint library's surface for the server, the CLI, tests and the bench. No `vscode` import here or
 * below: the same code runs in the language server process and in `node dist/cli.js lint`.
 */
import type { Parser } from 'web-tree-sitter';
import type { LintSettings } from '../shared/lintSettings';
import { analyze, mayHaveFindings, type FileInfo } from './analyze';
import { applyEdits, fixAllEdits } from './edits';
import { parseForLint } from './regions';
import type { Finding } from './types';

export { analyze, mayHaveFindings, type FileInfo } from './analyze';
export { applyEdits, fixAllEdits } from './edits';
export { createParser, findWasmDir, loadPython } from './parser';
export { lintRanges, parseForLint } from './regions';
export { RULES, TOOL, ruleDocPath } from './rules';
export type * from './types';

type Settings = Pick<LintSettings, 'include' | 'severity'>;

/** Parses (only when the gate passes) and analyses one file. */
export function lintText(parser: Parser, text: string, file: FileInfo, settings: Settings): Finding[] {
  if (!mayHaveFindings(text)) return [];
  const { tree } = parseForLint(parser, text);
  if (!tree) return [];
  try {
    return analyze(tree, text, file, settings);
  } finally {
    tree.delete();
  }
}

/** Lints, applies the chosen fixes, and returns the new text with what was left unfixed. */
export function fixText(parser: Parser, text: string, file: FileInfo, settings: Settings, opts: { unsafe?: boolean } = {}): { text: string; findings: Finding[]; fixed: number } {
  if (!mayHaveFindings(text)) return { text, findings: [], fixed: 0 };
  const { tree } = parseForLint(parser, text);
  if (!tree) return { text, findings: [], fixed: 0 };
  try {
    const findings = analyze(tree, text, file, settings);
    const edits = fixAllEdits(findings, tree, text, opts);
    const rewrites = edits.filter((e) => findings.some((f) => f.fix?.edit === e)).length;
    return { text: edits.length ? applyEdits(text, edits) : text, findings, fixed: rewrites };
  } finally {
    tree.delete();
  }
}

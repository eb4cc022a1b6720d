/**
 * Code actions per diagnostic (ESLint's set): the fix (preferred when safe, "(unsafe)" otherwise),
 * "Disable SNAPnnn for this line", "… for this file", "Show documentation for SNAPnnn"; and the
 * `source.fixAll.dynamoSnapshot` action for fix-all on save, which applies safe fixes only.
 * Fixes come precomputed in `Diagnostic.data`; edits carry the document version, so a stale fix is
 * rejected by the client instead of corrupting the file.
 */
import {
  CodeAction,
  CodeActionKind,
  type CodeActionParams,
  type Diagnostic,
  type TextEdit,
  type WorkspaceEdit,
} from 'vscode-languageserver';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import { fixAllEdits } from '../lint/edits';
import { TOOL } from '../lint/rules';
import { noqaFileEdit, noqaLineEdit } from '../lint/suppressEdits';
import { DiagnosticData, SHOW_DOCUMENTATION_COMMAND } from '../shared/lspProtocol';
import type { Analysis } from './validator';

export const FIX_ALL_KIND = `${CodeActionKind.SourceFixAll}.dynamoSnapshot`;

export interface ActionContext {
  doc: TextDocument;
  analysis: Analysis;
  documentChanges: boolean;
}

function workspaceEdit(ctx: ActionContext, edits: TextEdit[]): WorkspaceEdit {
  const { uri, version } = ctx.doc;
  return ctx.documentChanges
    ? { documentChanges: [{ textDocument: { uri, version }, edits }] }
    : { changes: { [uri]: edits } };
}

/** True when the request's `only` filter admits `kind` (a prefix match, as LSP defines it). */
function wanted(only: string[] | undefined, kind: string): boolean {
  return !only || only.some((o) => kind === o || kind.startsWith(o + '.'));
}

function forDiagnostic(ctx: ActionContext, d: Diagnostic): CodeAction[] {
  const parsed = DiagnosticData.safeParse(d.data);
  // Some clients echo back only part of a diagnostic (Neovim 0.7 keeps `data` but may drop `source`).
  if ((d.source !== undefined && d.source !== TOOL) || !parsed.success) return [];
  const data = parsed.data;
  const s = ctx.analysis.settings.codeAction;
  const out: CodeAction[] = [];
  if (s.fixViolation.enable && data.fix) {
    const a = CodeAction.create(data.fix.title, workspaceEdit(ctx, data.fix.edits), CodeActionKind.QuickFix);
    a.diagnostics = [d];
    a.isPreferred = data.fix.applicability === 'safe';
    out.push(a);
  }
  if (s.disableRuleComment.enable) {
    const tree = ctx.analysis.tree;
    const line = tree && noqaLineEdit(tree, ctx.doc.getText(), data.noqaLine, data.code);
    if (line) {
      const a = CodeAction.create(`Disable ${data.code} for this line`, workspaceEdit(ctx, [line]), CodeActionKind.QuickFix);
      a.diagnostics = [d];
      out.push(a);
    }
    const file = CodeAction.create(`Disable ${data.code} for this file`, workspaceEdit(ctx, [noqaFileEdit(ctx.doc.getText(), data.code)]), CodeActionKind.QuickFix);
    file.diagnostics = [d];
    out.push(file);
  }
  if (s.showDocumentation.enable) {
    out.push(
      CodeAction.create(`Show documentation for ${data.code}`, { title: `Show documentation for ${data.code}`, command: SHOW_DOCUMENTATION_COMMAND, arguments: [data.code] }, CodeActionKind.QuickFix),
    );
  }
  return out;
}

export function codeActions(params: CodeActionParams, ctx: ActionContext): CodeAction[] {
  const only = params.context.only;
  const out: CodeAction[] = [];
  if (wanted(only, CodeActionKind.QuickFix)) {
    const seen = new Set<string>();
    for (const d of params.context.diagnostics) {
      for (const a of forDiagnostic(ctx, d)) {
        // Several diagnostics on one line offer the same line/file/documentation actions once.
        const key = JSON.stringify([a.title, a.edit, a.command]);
        if (seen.has(key)) continue;
        seen.add(key);
        out.push(a);
      }
    }
  }
  if (only && only.some((o) => FIX_ALL_KIND === o || FIX_ALL_KIND.startsWith(o + '.')) && ctx.analysis.tree) {
    const edits = fixAllEdits(ctx.analysis.findings, ctx.analysis.tree, ctx.doc.getText());
    if (edits.length > 0) out.push(CodeAction.create('Fix all safe dynamo-snapshot problems', workspaceEdit(ctx, edits), FIX_ALL_KIND));
  }
  return out;
}

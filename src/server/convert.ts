/** Lint findings → LSP diagnostics (code, rule documentation link, related information, fix data). */
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { DiagnosticSeverity, type Diagnostic, type DiagnosticRelatedInformation } from 'vscode-languageserver';
import { TOOL, ruleDocPath } from '../lint/rules';
import type { Finding, Severity } from '../lint/types';
import type { DiagnosticData } from '../shared/lspProtocol';

const SEVERITY: Record<Severity, DiagnosticSeverity> = {
  error: DiagnosticSeverity.Error,
  warning: DiagnosticSeverity.Warning,
  information: DiagnosticSeverity.Information,
  hint: DiagnosticSeverity.Hint,
};

/**
 * Rule pages ship inside the extension (docs/rules/ is in the VSIX) and in the repository, one folder
 * above dist/server.js, so a file: URI works offline for VS Code, Neovim and any other client.
 */
export function docUri(code: string, root: string = path.resolve(__dirname, '..')): string | undefined {
  const rel = ruleDocPath(code);
  return rel ? pathToFileURL(path.join(root, rel)).href : undefined;
}

export function toDiagnostic(f: Finding, uri: string): Diagnostic {
  const href = docUri(f.code);
  const related: DiagnosticRelatedInformation[] = f.related.map((r) => ({ location: { uri, range: r.range }, message: r.message }));
  const data: DiagnosticData = {
    code: f.code,
    noqaLine: f.noqaLine,
    fix: f.fix && {
      title: f.fix.title + (f.fix.applicability === 'unsafe' ? ' (unsafe)' : ''),
      applicability: f.fix.applicability,
      edits: f.fix.importEdit ? [f.fix.edit, f.fix.importEdit] : [f.fix.edit],
    },
  };
  return {
    range: f.range,
    severity: SEVERITY[f.severity],
    code: f.code,
    ...(href ? { codeDescription: { href } } : {}),
    source: TOOL,
    message: f.message,
    ...(related.length > 0 ? { relatedInformation: related } : {}),
    data,
  };
}

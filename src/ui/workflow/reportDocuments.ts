/**
 * Run reports and comparisons as read-only Markdown documents (`dynamo-snapshot-report:` URIs) shown
 * in the Markdown preview: nothing to save, nothing written next to the records.
 */
import * as vscode from 'vscode';

export const REPORT_SCHEME = 'dynamo-snapshot-report';

export class ReportDocuments implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly contents = new Map<string, string>();
  private readonly emitter = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.emitter.event;
  private readonly registration: vscode.Disposable;

  constructor() {
    this.registration = vscode.workspace.registerTextDocumentContentProvider(REPORT_SCHEME, this);
  }

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.contents.get(uri.path) ?? '# Report not available\n\nThis report was shown in an earlier session; open it again from Open Run Report.\n';
  }

  /** Shows `markdown` as `name.md` in the Markdown preview; returns the document's URI. */
  async show(name: string, markdown: string): Promise<vscode.Uri> {
    const uri = vscode.Uri.from({ scheme: REPORT_SCHEME, path: `/${name.replace(/[^A-Za-z0-9_.-]/g, '_')}.md` });
    this.contents.set(uri.path, markdown);
    this.emitter.fire(uri);
    const doc = await vscode.workspace.openTextDocument(uri);
    await vscode.languages.setTextDocumentLanguage(doc, 'markdown');
    // The preview reads as a report; fall back to the source when the Markdown extension is absent.
    await vscode.commands.executeCommand('markdown.showPreview', uri).then(undefined, () => vscode.window.showTextDocument(doc, { preview: true }));
    return uri;
  }

  dispose(): void {
    this.registration.dispose();
    this.emitter.dispose();
  }
}

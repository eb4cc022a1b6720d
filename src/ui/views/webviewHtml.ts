/**
 * The Lifecycle panel's HTML shell: a strict Content-Security-Policy (nothing but this extension's
 * own stylesheet and one nonce'd script; no inline code, no remote content), and the two assets
 * from media/webview. Everything visible is drawn by lifecycle.js from the model it is sent.
 */
import { randomBytes } from 'node:crypto';
import * as vscode from 'vscode';

export function lifecycleHtml(webview: vscode.Webview, extensionUri: vscode.Uri): string {
  const nonce = randomBytes(18).toString('base64');
  const asset = (name: string) => webview.asWebviewUri(vscode.Uri.joinPath(extensionUri, 'media', 'webview', name));
  const csp = [`default-src 'none'`, `style-src ${webview.cspSource}`, `img-src ${webview.cspSource}`, `font-src ${webview.cspSource}`, `script-src 'nonce-${nonce}'`].join('; ');
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link rel="stylesheet" href="${asset('lifecycle.css').toString()}">
<title>Snapshot Lifecycle</title>
</head>
<body>
<main id="app" aria-label="Snapshot lifecycle"><p class="empty">Waiting for a run…</p></main>
<div id="tip" role="tooltip" hidden></div>
<script nonce="${nonce}" src="${asset('lifecycle.js').toString()}"></script>
</body>
</html>`;
}

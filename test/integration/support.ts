/** Helpers for the views' host tests: the extension's API, the views service, waiting. */
import * as assert from 'assert';
import * as vscode from 'vscode';
import type { WorkbenchApi } from '../../src/extension';
import { VIEWS_SERVICE, type ViewsService } from '../../src/ui/views/service';

export const EXTENSION_ID = 'dynamo-snapshot-workbench.dynamo-snapshot-workbench';

export async function api(): Promise<WorkbenchApi> {
  const ext = vscode.extensions.getExtension<WorkbenchApi>(EXTENSION_ID);
  assert.ok(ext, `extension ${EXTENSION_ID} is installed in the host`);
  return ext.isActive ? ext.exports : await ext.activate();
}

export async function viewsService(): Promise<{ a: WorkbenchApi; v: ViewsService }> {
  const a = await api();
  const v = a.ctx.service<ViewsService>(VIEWS_SERVICE);
  assert.ok(v, 'the views area registers its service');
  return { a, v };
}

export async function waitFor<T>(what: string, probe: () => T | undefined | false | Promise<T | undefined | false>, timeoutMs = 30_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v !== undefined && v !== false) return v;
    if (Date.now() > end) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

export function docFor(uri: vscode.Uri): vscode.TextDocument {
  const d = vscode.workspace.textDocuments.find((x) => x.uri.toString() === uri.toString());
  assert.ok(d, `document ${uri.toString()} is open`);
  return d;
}

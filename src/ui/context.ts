/**
 * The one context object. `activate` builds it; every area (workflow, views, lint) receives it and
 * registers what it creates in `subscriptions`, so one `dispose` tears everything down.
 */
import * as vscode from 'vscode';
import type { RunEvent } from '../core/workflow/types';
import { ConfigService } from './config';

export class Ctx implements vscode.Disposable {
  readonly subscriptions: vscode.Disposable[] = [];
  readonly log: vscode.LogOutputChannel;
  readonly config: ConfigService;
  /** Every workflow state change; the workflow fires, views and the status bar listen. */
  readonly runEvents = new vscode.EventEmitter<RunEvent>();
  /** Per-area services, set once by each area's `register…` during activation. */
  readonly services = new Map<string, unknown>();
  readonly activatedAt = Date.now();
  /** Async teardown run by `deactivate` before disposal (stop the language client, close connections). */
  readonly onDeactivate: Array<() => Promise<void>> = [];

  constructor(readonly extension: vscode.ExtensionContext) {
    this.log = vscode.window.createOutputChannel('Dynamo Snapshot', { log: true });
    this.config = new ConfigService(this.log);
    this.subscriptions.push(this.log, this.config, this.runEvents);
  }

  get extensionRoot(): string {
    return this.extension.extensionUri.fsPath;
  }

  /** Where run records and local run logs live: the workspace's storage, else global storage. */
  get storageDir(): string {
    const configured = this.config.settings.general['runs.directory'];
    if (configured && vscode.workspace.isTrusted) return configured;
    return (this.extension.storageUri ?? this.extension.globalStorageUri).fsPath;
  }

  service<T>(key: string): T | undefined {
    return this.services.get(key) as T | undefined;
  }

  async deactivateHooks(): Promise<void> {
    await Promise.allSettled(this.onDeactivate.splice(0).map((f) => f()));
    this.dispose();
  }

  dispose(): void {
    for (const d of this.subscriptions.splice(0).reverse()) {
      try {
        d.dispose();
      } catch (e) {
        console.error('[dynamo-snapshot] dispose failed', e);
      }
    }
  }
}

/**
 * The lint server's language status items on Python files: state (starting, busy, ready, failed), the
 * last validation's time against `timeBudget.onValidation`, "Show Log"; and a second item to restart.
 */
import * as vscode from 'vscode';
import type { ValidationReport } from '../../shared/lspProtocol';

const SELECTOR: vscode.DocumentSelector = { language: 'python' };

export class LintStatus implements vscode.Disposable {
  private readonly item = vscode.languages.createLanguageStatusItem('dynamoSnapshot.lint.status', SELECTOR);
  private readonly restart = vscode.languages.createLanguageStatusItem('dynamoSnapshot.lint.restart', SELECTOR);
  private last: ValidationReport | undefined;

  constructor() {
    this.item.name = 'Dynamo Snapshot Lint';
    this.item.command = { title: 'Show Log', command: 'dynamoSnapshot.lint.showServerLog' };
    this.restart.name = 'Dynamo Snapshot Lint: restart';
    this.restart.text = 'Snapshot lint server';
    this.restart.command = { title: 'Restart', command: 'dynamoSnapshot.lint.restartServer' };
    this.starting();
  }

  starting(): void {
    this.item.busy = true;
    this.item.text = '$(sync) Snapshot lint';
    this.item.detail = 'starting the language server';
    this.item.severity = vscode.LanguageStatusSeverity.Information;
  }

  busy(on: boolean): void {
    this.item.busy = on;
  }

  ready(): void {
    this.item.busy = false;
    this.item.text = '$(check) Snapshot lint';
    this.item.detail = this.last ? this.describe(this.last) : 'ready';
    this.item.severity = vscode.LanguageStatusSeverity.Information;
  }

  disabled(): void {
    this.item.busy = false;
    this.item.text = '$(circle-slash) Snapshot lint';
    this.item.detail = 'off (dynamoSnapshot.lint.enable)';
    this.item.severity = vscode.LanguageStatusSeverity.Information;
  }

  failed(message: string): void {
    this.item.busy = false;
    this.item.text = '$(error) Snapshot lint';
    this.item.detail = message;
    this.item.severity = vscode.LanguageStatusSeverity.Error;
  }

  validated(r: ValidationReport): void {
    this.last = r;
    this.item.busy = false;
    this.item.text = r.state === 'ok' ? '$(check) Snapshot lint' : '$(watch) Snapshot lint';
    this.item.detail = this.describe(r);
    this.item.severity =
      r.state === 'error' ? vscode.LanguageStatusSeverity.Error : r.state === 'warn' ? vscode.LanguageStatusSeverity.Warning : vscode.LanguageStatusSeverity.Information;
  }

  get lastReport(): ValidationReport | undefined {
    return this.last;
  }

  private describe(r: ValidationReport): string {
    const name = decodeURIComponent(r.uri.slice(r.uri.lastIndexOf('/') + 1));
    const when = new Date().toLocaleTimeString();
    if (r.skipped) return `${name}: no exit names, not parsed (${when})`;
    const over = r.state === 'ok' ? '' : ` — over the ${r.state} budget`;
    return `${name}: validated in ${r.ms} ms, ${r.findings} finding${r.findings === 1 ? '' : 's'}${over} (${when})`;
  }

  dispose(): void {
    this.item.dispose();
    this.restart.dispose();
  }
}

/**
 * The one status-bar item of the workflow: the selected worker and, during a run, the step running
 * now. Clicking it picks another worker (idle) or shows the output (running).
 */
import * as vscode from 'vscode';
import { STEP_TITLES } from '../../core/workflow/types';
import type { WorkflowController } from './service';

export class WorkflowStatusBar implements vscode.Disposable {
  private readonly item: vscode.StatusBarItem;
  private readonly listener: vscode.Disposable;

  constructor(private readonly service: WorkflowController) {
    this.item = vscode.window.createStatusBarItem('dynamoSnapshot.worker', vscode.StatusBarAlignment.Left, 50);
    this.item.name = 'Dynamo Snapshot Worker';
    this.listener = service.onDidChange(() => this.update());
    this.update();
  }

  /** What the item shows now (also read by the integration tests). */
  get text(): string {
    return this.item.text;
  }

  update(): void {
    const worker = this.service.selectedWorker();
    const run = this.service.activeRun();
    if (run) {
      const step = run.step ? STEP_TITLES[run.step] : 'starting';
      this.item.text = `$(sync~spin) ${run.worker}: ${step}`;
      this.item.tooltip = `Dynamo Snapshot: ${run.title} on ${run.worker}, now "${step}". Click to show the output.`;
      this.item.command = 'dynamoSnapshot.showOutput';
    } else {
      const state = worker ? this.service.connectionState(worker)?.state : undefined;
      const icon = state === 'connected' ? '$(vm-active)' : state === 'failed' ? '$(vm-outline)' : '$(server-environment)';
      this.item.text = `${icon} ${worker ?? 'No worker'}`;
      const source = worker ? this.service.sourceState(worker) : undefined;
      this.item.tooltip = worker ? `Dynamo Snapshot worker: ${worker}${state ? ` (${state})` : ''}${source ? `; ${source}` : ''}. Click to select another.` : 'Dynamo Snapshot: no worker selected. Click to select one.';
      this.item.command = 'dynamoSnapshot.selectWorker';
    }
    this.item.show();
  }

  dispose(): void {
    this.listener.dispose();
    this.item.dispose();
  }
}

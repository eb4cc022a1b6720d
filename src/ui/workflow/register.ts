/**
 * Registers the workflow area: the service (`workflow`), the status-bar item, the report documents,
 * the `dynamoSnapshot.runActive` context key, and teardown that stops what runs when the window goes.
 * Cheap: nothing connects until a command runs.
 */
import * as vscode from 'vscode';
import type { Ctx } from '../context';
import { ReportDocuments } from './reportDocuments';
import { WORKFLOW_SERVICE, WorkflowController } from './service';
import { WorkflowStatusBar } from './statusBar';
import { WORKFLOW_UI, type WorkflowUi } from './ui';

export function registerWorkflow(ctx: Ctx): void {
  const controller = new WorkflowController(ctx);
  const statusBar = new WorkflowStatusBar(controller);
  const reports = new ReportDocuments();
  ctx.services.set(WORKFLOW_SERVICE, controller);
  ctx.services.set(WORKFLOW_UI, { statusBar, reports } satisfies WorkflowUi);
  ctx.subscriptions.push(controller, statusBar, reports, ctx.config.onDidChange(() => statusBar.update()));
  void vscode.commands.executeCommand('setContext', 'dynamoSnapshot.runActive', false);
  ctx.onDeactivate.push(() => controller.shutdown());
}

/** The workflow's UI pieces that commands reach: the status-bar item and the report documents. */
import type { Ctx } from '../context';
import type { ReportDocuments } from './reportDocuments';
import type { WorkflowStatusBar } from './statusBar';

export const WORKFLOW_UI = 'workflow.ui';

export interface WorkflowUi {
  statusBar: WorkflowStatusBar;
  reports: ReportDocuments;
}

export function workflowUi(ctx: Ctx): WorkflowUi | undefined {
  return ctx.service<WorkflowUi>(WORKFLOW_UI);
}

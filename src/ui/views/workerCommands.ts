/** Edit Worker Profiles, Add Local Demo Worker, Refresh Workers. */
import * as vscode from 'vscode';
import { LOCAL_DEMO } from '../../core/settings/workerProfile';
import type { Ctx } from '../context';
import { views } from './logCommands';

/** Opens the settings JSON at `dynamoSnapshot.workers` (the workspace's when a folder is open). */
export async function editWorkerProfiles(): Promise<void> {
  const args = { revealSetting: { key: 'dynamoSnapshot.workers', edit: true } };
  const cmd = vscode.workspace.workspaceFolders?.length ? 'workbench.action.openWorkspaceSettingsFile' : 'workbench.action.openSettingsJson';
  await vscode.commands.executeCommand(cmd, args);
}

/**
 * The local demo profile is built in, so "adding" it means making it the worker this workspace
 * uses: `dynamoSnapshot.defaultWorker` = local-demo, selected now, shown in the Workers view.
 */
export async function addDemoWorker(ctx: Ctx): Promise<string> {
  const target = vscode.workspace.workspaceFolders?.length ? vscode.ConfigurationTarget.Workspace : vscode.ConfigurationTarget.Global;
  await vscode.workspace.getConfiguration('dynamoSnapshot').update('defaultWorker', LOCAL_DEMO, target);
  const v = views(ctx);
  await v.workerSource.select(LOCAL_DEMO);
  v.workers.refresh();
  await vscode.commands.executeCommand('dynamoSnapshot.workers.focus');
  return LOCAL_DEMO;
}

export function refreshWorkers(ctx: Ctx): void {
  views(ctx).workers.refresh();
}

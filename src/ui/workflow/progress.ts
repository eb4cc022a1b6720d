/**
 * A cancellable progress notification for a run that names the step running now; Cancel cancels the
 * run (which stops what it started).
 */
import * as vscode from 'vscode';
import { STEP_TITLES, type RunEvent } from '../../core/workflow/types';
import type { Ctx } from '../context';

export function showRunProgress<T>(ctx: Ctx, title: string, run: () => Promise<T>, cancel: () => void): Promise<T> {
  return Promise.resolve(
    vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: `Dynamo Snapshot: ${title}`, cancellable: true }, async (progress, token) => {
      const cancelSub = token.onCancellationRequested(() => cancel());
      const sub = ctx.runEvents.event((e: RunEvent) => {
        if (e.type === 'step' && e.step.state === 'running') progress.report({ message: `${STEP_TITLES[e.step.name]}…` });
      });
      try {
        return await run();
      } finally {
        sub.dispose();
        cancelSub.dispose();
      }
    }),
  );
}

/**
 * Commands are declared in tables, one per area, and registered here in one loop. A test checks the
 * union of the tables against `contributes.commands` in package.json.
 */
import * as vscode from 'vscode';
import type { Ctx } from '../context';

export interface CommandSpec {
  /** Full id, e.g. `dynamoSnapshot.connect`. */
  id: string;
  /** Runs programs (ssh, kubectl, a worker): refused in an untrusted workspace, with the reason. */
  needsTrust?: boolean;
  run(ctx: Ctx, ...args: unknown[]): unknown;
}

export function registerCommands(ctx: Ctx, specs: readonly CommandSpec[]): void {
  const seen = new Set<string>();
  for (const spec of specs) {
    if (seen.has(spec.id)) throw new Error(`command ${spec.id} is declared twice`);
    seen.add(spec.id);
    ctx.subscriptions.push(
      vscode.commands.registerCommand(spec.id, async (...args: unknown[]) => {
        if (spec.needsTrust && !vscode.workspace.isTrusted) {
          void vscode.window.showWarningMessage(
            'Dynamo Snapshot: this workspace is not trusted, so the extension will not start workers, ssh or kubectl from it. Trust the workspace to continue.',
            'Manage Workspace Trust',
          ).then((c) => c && vscode.commands.executeCommand('workbench.trust.manage'));
          return undefined;
        }
        try {
          return await spec.run(ctx, ...args);
        } catch (e) {
          const message = e instanceof Error ? e.message : String(e);
          ctx.log.error(`${spec.id} failed: ${e instanceof Error && e.stack ? e.stack : message}`);
          void vscode.window.showErrorMessage(`Dynamo Snapshot: ${message}`, 'Show Output').then((c) => c && ctx.log.show(true));
          return undefined;
        }
      }),
    );
  }
}

/** Ids of every command registered by this extension (for the package.json check). */
export function commandIds(specs: readonly CommandSpec[]): string[] {
  return specs.map((s) => s.id);
}

/**
 * Activation only: build the context object, let each area register itself, return. No ssh,
 * kubectl, network or parsing happens here; the language server starts after activation returns.
 */
import * as vscode from 'vscode';
import { Ctx } from './ui/context';
import { registerCommands } from './ui/commands/table';
import { allCommands } from './ui/commands/all';
import { registerAreas } from './ui/areas';

let ctx: Ctx | undefined;

export interface WorkbenchApi {
  /** ms spent in activate(), for the activation benchmark and the host tests */
  activationMs: number;
  ctx: Ctx;
}

export function activate(context: vscode.ExtensionContext): WorkbenchApi {
  const t0 = performance.now();
  ctx = new Ctx(context);
  context.subscriptions.push(ctx);
  registerAreas(ctx);
  registerCommands(ctx, allCommands);
  ctx.config.report();
  const activationMs = performance.now() - t0;
  ctx.log.info(`activated in ${activationMs.toFixed(1)} ms (VS Code ${vscode.version})`);
  return { activationMs, ctx };
}

export function deactivate(): Promise<void> | undefined {
  const c = ctx;
  ctx = undefined;
  return c?.deactivateHooks();
}

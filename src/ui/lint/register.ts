/**
 * The lint area: a language client for the snapshot lint server, started after `activate` returns
 * (activation stays free of process spawns), its status items and log, and teardown on deactivate.
 */
import type { Ctx } from '../context';
import { LintService } from './client';

export const LINT_SERVICE = 'lint';

export function registerLint(ctx: Ctx): void {
  const service = new LintService(ctx);
  ctx.services.set(LINT_SERVICE, service);
  ctx.subscriptions.push(service);
  ctx.subscriptions.push(ctx.config.onDidChange((e) => {
    if (e.affectsConfiguration('dynamoSnapshot.lint')) void service.settingsChanged();
  }));
  ctx.onDeactivate.push(() => service.stop());
  // Deferred so activate() returns before a process is spawned.
  setTimeout(() => void service.start(), 0);
}

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
  // Deferred so activate() returns before a process is spawned; a deactivation that comes first
  // cancels it (else the server would start after its stop and outlive the extension).
  const deferred = setTimeout(() => void service.start(), 0);
  ctx.subscriptions.push({ dispose: () => clearTimeout(deferred) });
  ctx.onDeactivate.push(() => {
    clearTimeout(deferred);
    return service.stop();
  });
}

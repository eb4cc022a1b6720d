import type { CommandSpec } from '../commands/table';
import type { LintService } from './client';
import { LINT_SERVICE } from './register';

function service(ctx: Parameters<CommandSpec['run']>[0]): LintService {
  const s = ctx.service<LintService>(LINT_SERVICE);
  if (!s) throw new Error('the lint area is not registered');
  return s;
}

/** Lint commands: neither runs a workspace program (the server is the extension's own bundle). */
export const lintCommands: readonly CommandSpec[] = [
  {
    id: 'dynamoSnapshot.lint.restartServer',
    run: async (ctx) => {
      await service(ctx).restart();
      ctx.log.info('snapshot lint server restarted');
    },
  },
  {
    id: 'dynamoSnapshot.lint.showServerLog',
    run: (ctx) => service(ctx).log.show(true),
  },
];

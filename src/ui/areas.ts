/** Each area of the UI registers its services, views and listeners on the context object. */
import type { Ctx } from './context';
import { registerWorkflow } from './workflow/register';
import { registerViews } from './views/register';
import { registerLint } from './lint/register';

export function registerAreas(ctx: Ctx): void {
  registerWorkflow(ctx);
  registerViews(ctx);
  registerLint(ctx);
}

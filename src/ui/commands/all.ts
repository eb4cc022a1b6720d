/** The union of every area's command table (checked against package.json by a test). */
import type { CommandSpec } from './table';
import { workflowCommands } from '../workflow/commands';
import { viewCommands } from '../views/commands';
import { lintCommands } from '../lint/commands';

export const allCommands: readonly CommandSpec[] = [...workflowCommands, ...viewCommands, ...lintCommands];

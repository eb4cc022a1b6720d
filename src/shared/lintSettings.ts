/**
 * Lint settings, typed once and shared by the extension (which reads `dynamoSnapshot.lint.*`), the
 * language server (which receives them through `workspace/configuration`) and the CLI (`--config`).
 */
import { z } from 'zod';

export const RuleSeverity = z.enum(['error', 'warning', 'information', 'hint', 'off']);
export type RuleSeverity = z.output<typeof RuleSeverity>;

export const DEFAULT_INCLUDE = ['**/snapshot.py', '**/snapshot/**/*.py'];

export const LintSettings = z.strictObject({
  enable: z.boolean().default(true),
  include: z.array(z.string().min(1)).default(DEFAULT_INCLUDE),
  run: z.enum(['onType', 'onSave']).default('onType'),
  severity: z.record(z.string().regex(/^SNAP\d{3}$/, 'keys must be rule codes such as SNAP001'), RuleSeverity).default({}),
  codeAction: z
    .strictObject({
      fixViolation: z.strictObject({ enable: z.boolean().default(true) }).default({ enable: true }),
      disableRuleComment: z.strictObject({ enable: z.boolean().default(true) }).default({ enable: true }),
      showDocumentation: z.strictObject({ enable: z.boolean().default(true) }).default({ enable: true }),
    })
    .default({ fixViolation: { enable: true }, disableRuleComment: { enable: true }, showDocumentation: { enable: true } }),
  timeBudget: z
    .strictObject({
      onValidation: z
        .strictObject({ warn: z.number().int().min(0).default(500), error: z.number().int().min(0).default(2000) })
        .default({ warn: 500, error: 2000 }),
    })
    .default({ onValidation: { warn: 500, error: 2000 } }),
});

export type LintSettings = z.output<typeof LintSettings>;
export const DEFAULT_LINT_SETTINGS: LintSettings = LintSettings.parse({});

/**
 * Lint settings, typed once and shared by the extension (which reads `dynamoSnapshot.lint.*`), the
 * language server (which receives them through `workspace/configuration`) and the CLI (`--config`).
 */
import { z } from 'zod';
import { globProblem } from '../lint/glob';

export const RuleSeverity = z.enum(['error', 'warning', 'information', 'hint', 'off']);
export type RuleSeverity = z.output<typeof RuleSeverity>;

export const DEFAULT_INCLUDE = ['**/snapshot.py', '**/snapshot/**/*.py'];

export const LintSettings = z.strictObject({
  enable: z.boolean().default(true),
  include: z
    .array(
      z
        .string()
        .min(1)
        .superRefine((g, ctx) => {
          const problem = globProblem(g);
          if (problem) ctx.addIssue({ code: 'custom', message: problem });
        }),
    )
    .default(DEFAULT_INCLUDE),
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

/**
 * Parses settings from a client that may send anything (another editor's config, a hand-written
 * `--config` file): keys that fail validation fall back to their defaults, each named in `problems`
 * as `dynamoSnapshot.lint.<key>: <what is wrong>`.
 */
export function parseLintSettingsLenient(raw: unknown): { settings: LintSettings; problems: string[] } {
  if (raw === undefined || raw === null) return { settings: DEFAULT_LINT_SETTINGS, problems: [] };
  if (typeof raw !== 'object' || Array.isArray(raw)) {
    return { settings: DEFAULT_LINT_SETTINGS, problems: [`dynamoSnapshot.lint: expected an object (got ${JSON.stringify(raw)})`] };
  }
  const input: Record<string, unknown> = { ...(raw as Record<string, unknown>) };
  const problems: string[] = [];
  for (let attempt = 0; attempt < 10; attempt++) {
    const r = LintSettings.safeParse(input);
    if (r.success) return { settings: r.data, problems };
    const bad = new Set<string>();
    for (const issue of r.error.issues) {
      const key = issue.path.length > 0 ? String(issue.path[0]) : (issue.code === 'unrecognized_keys' ? String(issue.keys[0]) : '');
      if (issue.code === 'unrecognized_keys' && issue.path.length === 0) for (const k of issue.keys) bad.add(k);
      else if (key) bad.add(key);
      problems.push(`dynamoSnapshot.lint${issue.path.length ? '.' + issue.path.map(String).join('.') : ''}: ${issue.message}`);
    }
    if (bad.size === 0) break;
    for (const k of bad) delete input[k];
  }
  return { settings: DEFAULT_LINT_SETTINGS, problems };
}

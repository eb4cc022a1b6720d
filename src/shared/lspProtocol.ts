/**
 * The snapshot lint server's custom messages, typed once (zod) and used by both ends: the server in
 * src/server and the language client in src/ui/lint. Standard LSP carries everything else.
 */
import { z } from 'zod';

/** Sent after each validation, as ESLint's `eslint/status` does: how long it took against the budget. */
export const ValidationReport = z.object({
  uri: z.string(),
  version: z.number().int().nullable(),
  /** Wall time of parse + rules, milliseconds. */
  ms: z.number().nonnegative(),
  findings: z.number().int().nonnegative(),
  /** `ok`, or past `timeBudget.onValidation.warn` / `.error`. */
  state: z.enum(['ok', 'warn', 'error']),
  /** True when the pre-filter skipped parsing (no exit-like name in the file). */
  skipped: z.boolean(),
});
export type ValidationReport = z.output<typeof ValidationReport>;
export const VALIDATION_REPORT = 'dynamoSnapshot/validationReport';

/** Sent when a validation that may take a while starts and when the queue drains. */
export const ServerBusy = z.object({ busy: z.boolean() });
export type ServerBusy = z.output<typeof ServerBusy>;
export const SERVER_BUSY = 'dynamoSnapshot/busy';

/** Server-side command behind "Show documentation for SNAPnnn" (opens the rule page). */
export const SHOW_DOCUMENTATION_COMMAND = 'snapshotLint.showDocumentation';

/** The precomputed fix carried in `Diagnostic.data`, so `codeAction` needs no re-analysis. */
const Pos = z.object({ line: z.number().int().min(0), character: z.number().int().min(0) });
const Edit = z.object({ range: z.object({ start: Pos, end: Pos }), newText: z.string() });
export const DiagnosticData = z.object({
  code: z.string(),
  noqaLine: z.number().int().min(0),
  fix: z
    .object({
      title: z.string(),
      applicability: z.enum(['safe', 'unsafe']),
      edits: z.array(Edit),
    })
    .optional(),
});
export type DiagnosticData = z.output<typeof DiagnosticData>;

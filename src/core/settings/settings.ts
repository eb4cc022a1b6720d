/**
 * Every `dynamoSnapshot.*` setting, read and validated in one place. The caller passes a getter
 * (the VS Code layer wraps `workspace.getConfiguration`, the CLI reads a JSON file), so this module
 * has no `vscode` import. A wrong value never throws: it falls back to the default and yields a
 * problem that names the setting and what is wrong.
 */
import { z } from 'zod';
import { LintSettings } from '../../shared/lintSettings';
import { formatProblem, parseWorkerProfiles, type WorkerProfile } from './workerProfile';

export const SECTION = 'dynamoSnapshot';

const GeneralSettings = {
  defaultWorker: z.string().default('local-demo'),
  'ssh.path': z.string().min(1, 'must name the ssh executable').default('ssh'),
  'ssh.configFile': z.string().default(''),
  'kubectl.path': z.string().min(1, 'must name the kubectl executable').default('kubectl'),
  'kubectl.kubeconfig': z.string().default(''),
  'runs.directory': z.string().default(''),
  'runs.keep': z.number().int().min(1).max(10000).default(50),
  'logs.memoryLinesPerRank': z.number().int().min(100).max(100000).default(2000),
  'logs.showTimestamps': z.boolean().default(false),
  'trace.server': z.enum(['off', 'messages', 'verbose']).default('off'),
} as const;

type General = { [K in keyof typeof GeneralSettings]: z.output<(typeof GeneralSettings)[K]> };

export interface Settings {
  general: General;
  workers: WorkerProfile[];
  lint: LintSettings;
}

/** A problem with one setting: `setting` is the full key, e.g. `dynamoSnapshot.runs.keep`. */
export interface SettingProblem {
  setting: string;
  message: string;
}

export type SettingGetter = (key: string) => unknown;

function describe(issue: z.core.$ZodIssue, value: unknown): string {
  const at = issue.path.length ? `${issue.path.map(String).join('.')}: ` : '';
  return `${at}${issue.message} (got ${JSON.stringify(value) ?? 'undefined'})`;
}

/** Reads every setting through `get` (keys relative to `dynamoSnapshot.`). */
export function readSettings(get: SettingGetter): { settings: Settings; problems: SettingProblem[] } {
  const problems: SettingProblem[] = [];
  const general = {} as Record<string, unknown>;
  for (const [key, schema] of Object.entries(GeneralSettings)) {
    const raw = get(key);
    const r = (schema as z.ZodType).safeParse(raw);
    if (r.success) general[key] = r.data;
    else {
      problems.push({ setting: `${SECTION}.${key}`, message: describe(r.error.issues[0]!, raw) });
      general[key] = (schema as z.ZodType).parse(undefined);
    }
  }
  const { profiles, problems: profileProblems } = parseWorkerProfiles(get('workers'));
  for (const p of profileProblems) problems.push({ setting: `${SECTION}.workers`, message: formatProblem(p).replace(/^dynamoSnapshot\.workers: /, '') });

  const lintRaw = get('lint');
  const lintParsed = LintSettings.safeParse(lintRaw ?? {});
  let lint: LintSettings;
  if (lintParsed.success) lint = lintParsed.data;
  else {
    lint = LintSettings.parse({});
    for (const issue of lintParsed.error.issues) {
      problems.push({ setting: `${SECTION}.lint.${issue.path.map(String).join('.')}`, message: `${issue.message}` });
    }
  }
  return { settings: { general: general as General, workers: profiles, lint }, problems };
}

/** One line for a person, e.g. in a warning notification or the CLI's stderr. */
export function formatSettingProblem(p: SettingProblem): string {
  return `Setting ${p.setting}: ${p.message}`;
}

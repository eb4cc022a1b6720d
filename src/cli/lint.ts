/**
 * `dsw lint [--format text|json|sarif] [--config FILE] [--fix] PATH...`: the editor's rules and
 * settings for CI and pre-commit. Exit status: 1 when a finding at error severity remains, 0 when
 * none, 2 on usage errors (unknown option, missing path, invalid config).
 */
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { ConfigError, loadConfig } from '../lint/cli/config';
import { MissingPathError, pythonFiles } from '../lint/cli/files';
import { toSarif, type FileFindings } from '../lint/cli/sarif';
import { createParser, fixText, lintText, type Finding } from '../lint/index';

const VERSION = '0.1.0';

const USAGE = `usage: dsw lint [--format text|json|sarif] [--config FILE] [--fix] PATH...

Lints Python snapshot code for capture-path exits through SystemExit (SNAP001), exits on the restore
path (SNAP002) and restore-standby checks after heavy imports (SNAP003).

  --format FMT   text (default), json, or sarif (SARIF 2.1.0 for GitHub code scanning)
  --config FILE  settings: a .vscode/settings.json or a JSON file with "dynamoSnapshot.lint" keys;
                 default: the nearest .vscode/settings.json above the current folder
  --fix          apply safe fixes in place, then report what is left
  -h, --help     this text

Exit status: 0 no error-severity findings, 1 error-severity findings, 2 usage error.`;

function usageError(message: string): number {
  process.stderr.write(`dsw lint: ${message}\n\n${USAGE}\n`);
  return 2;
}

function toPosix(p: string): string {
  return p.split(path.sep).join('/');
}

function textReport(files: FileFindings[], fixedCount: number, fixMode: boolean): string {
  const lines: string[] = [];
  let errors = 0;
  let total = 0;
  let fixable = 0;
  for (const f of files) {
    for (const x of f.findings) {
      total++;
      if (x.severity === 'error') errors++;
      const mark = x.fix ? (x.fix.applicability === 'safe' ? ' [*]' : ' [unsafe fix]') : '';
      if (x.fix?.applicability === 'safe') fixable++;
      lines.push(`${f.path}:${x.range.start.line + 1}:${x.range.start.character + 1}: ${x.code} ${x.severity}: ${x.message}${mark}`);
    }
  }
  const summary = total === 0 ? 'No problems found.' : `Found ${total} problem${total === 1 ? '' : 's'} (${errors} error${errors === 1 ? '' : 's'}).`;
  lines.push(summary);
  if (fixMode) lines.push(`Fixed ${fixedCount} problem${fixedCount === 1 ? '' : 's'}.`);
  else if (fixable > 0) lines.push(`${fixable} fixable with --fix.`);
  return lines.join('\n') + '\n';
}

function jsonReport(files: FileFindings[]): string {
  const rows = files.flatMap((f) =>
    f.findings.map((x: Finding) => ({
      path: f.path,
      code: x.code,
      severity: x.severity,
      message: x.message,
      line: x.range.start.line + 1,
      column: x.range.start.character + 1,
      endLine: x.range.end.line + 1,
      endColumn: x.range.end.character + 1,
      level: x.level ?? null,
      fix: x.fix ? { title: x.fix.title, applicability: x.fix.applicability, edits: x.fix.importEdit ? [x.fix.edit, x.fix.importEdit] : [x.fix.edit] } : null,
    })),
  );
  return JSON.stringify(rows, null, 2) + '\n';
}

export async function lintMain(argv: string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        format: { type: 'string', default: 'text' },
        config: { type: 'string' },
        fix: { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h', default: false },
      },
    });
  } catch (e) {
    return usageError(e instanceof Error ? e.message : String(e));
  }
  const { values, positionals } = parsed;
  if (values.help) {
    process.stdout.write(USAGE + '\n');
    return 0;
  }
  const format = values.format;
  if (format !== 'text' && format !== 'json' && format !== 'sarif') return usageError(`--format must be text, json or sarif (got "${format}")`);
  if (positionals.length === 0) return usageError('no PATH given');

  const cwd = process.cwd();
  let config;
  let files: string[];
  try {
    config = loadConfig(values.config, cwd);
    files = pythonFiles(positionals, cwd);
  } catch (e) {
    if (e instanceof ConfigError || e instanceof MissingPathError) return usageError(e.message);
    throw e;
  }

  const parser = await createParser();
  const results: FileFindings[] = [];
  let fixedCount = 0;
  for (const abs of files) {
    let text: string;
    try {
      text = fs.readFileSync(abs, 'utf8');
    } catch (e) {
      process.stderr.write(`dsw lint: cannot read ${abs}: ${e instanceof Error ? e.message : String(e)}\n`);
      return 2;
    }
    const rel = path.relative(config.root, abs);
    const file = { relPath: rel.startsWith('..') ? abs : rel, absPath: abs };
    let findings: Finding[];
    if (values.fix) {
      const r = fixText(parser, text, file, config.settings);
      if (r.fixed > 0) {
        fs.writeFileSync(abs, r.text);
        fixedCount += r.fixed;
        findings = lintText(parser, r.text, file, config.settings);
      } else findings = r.findings;
    } else findings = lintText(parser, text, file, config.settings);
    if (findings.length > 0) results.push({ path: toPosix(path.relative(cwd, abs) || abs), findings });
  }

  if (format === 'json') process.stdout.write(jsonReport(results));
  else if (format === 'sarif') process.stdout.write(JSON.stringify(toSarif(results, VERSION), null, 2) + '\n');
  else process.stdout.write(textReport(results, fixedCount, values.fix));
  return results.some((f) => f.findings.some((x) => x.severity === 'error')) ? 1 : 0;
}

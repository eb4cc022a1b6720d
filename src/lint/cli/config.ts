/**
 * Settings for `dsw lint`: the same `dynamoSnapshot.lint.*` shape the editor uses, read from
 * `--config FILE` or, without it, from the nearest `.vscode/settings.json` above the working folder.
 * Accepted shapes: VS Code's dotted keys (`"dynamoSnapshot.lint.include": [...]`), a section object
 * (`"dynamoSnapshot.lint": {...}`), or nested (`"dynamoSnapshot": {"lint": {...}}`). JSON with
 * comments and trailing commas, as settings.json allows.
 */
import fs from 'node:fs';
import path from 'node:path';
import { parseJsonc } from '../../shared/jsonc';
import { LintSettings } from '../../shared/lintSettings';


export class ConfigError extends Error {}

function setPath(obj: Record<string, unknown>, keys: string[], value: unknown): void {
  let cur = obj;
  for (const k of keys.slice(0, -1)) {
    if (typeof cur[k] !== 'object' || cur[k] === null) cur[k] = {};
    cur = cur[k] as Record<string, unknown>;
  }
  cur[keys[keys.length - 1]!] = value;
}

/** The `dynamoSnapshot.lint` object out of any accepted shape. */
export function lintSection(json: unknown): Record<string, unknown> {
  if (typeof json !== 'object' || json === null || Array.isArray(json)) throw new ConfigError('the file must hold a JSON object');
  const out: Record<string, unknown> = {};
  const src = json as Record<string, unknown>;
  const nested = (src.dynamoSnapshot as Record<string, unknown> | undefined)?.lint;
  if (nested && typeof nested === 'object') Object.assign(out, nested);
  const section = src['dynamoSnapshot.lint'];
  if (section && typeof section === 'object') Object.assign(out, section);
  for (const [k, v] of Object.entries(src)) {
    if (k.startsWith('dynamoSnapshot.lint.')) setPath(out, k.slice('dynamoSnapshot.lint.'.length).split('.'), v);
  }
  return out;
}

export interface LoadedConfig {
  settings: LintSettings;
  /** The folder `include` globs are relative to: the workspace holding `.vscode/`, else the config's folder. */
  root: string;
  file?: string;
}

export function findWorkspaceSettings(from: string): string | undefined {
  for (let dir = path.resolve(from); ; dir = path.dirname(dir)) {
    const f = path.join(dir, '.vscode', 'settings.json');
    if (fs.existsSync(f)) return f;
    if (path.dirname(dir) === dir) return undefined;
  }
}

export function loadConfig(file: string | undefined, cwd: string): LoadedConfig {
  const chosen = file ? path.resolve(cwd, file) : findWorkspaceSettings(cwd);
  if (!chosen) return { settings: LintSettings.parse({}), root: cwd };
  let text: string;
  try {
    text = fs.readFileSync(chosen, 'utf8');
  } catch (e) {
    throw new ConfigError(`cannot read ${chosen}: ${e instanceof Error ? e.message : String(e)}`);
  }
  let json: unknown;
  try {
    json = parseJsonc(text);
  } catch (e) {
    throw new ConfigError(`${chosen} is not valid JSON: ${e instanceof Error ? e.message : String(e)}`);
  }
  const r = LintSettings.safeParse(lintSection(json));
  if (!r.success) {
    const issue = r.error.issues[0]!;
    const key = ['dynamoSnapshot.lint', ...issue.path.map(String)].join('.');
    throw new ConfigError(`${chosen}: setting ${key}: ${issue.message}`);
  }
  const dir = path.dirname(chosen);
  return { settings: r.data, root: path.basename(dir) === '.vscode' ? path.dirname(dir) : dir, file: chosen };
}

/**
 * Settings for the headless CLI: a workspace's `.vscode/settings.json` (JSON with comments and
 * trailing commas, flat keys such as `"dynamoSnapshot.workers"`) or a `--config FILE` holding the same
 * shape (flat, or nested as `{"dynamoSnapshot": {"workers": [...]}}`). Validated by core/settings, so
 * a wrong profile is named exactly as the extension names it.
 */
import fs from 'node:fs';
import { parseJsonc } from '../../shared/jsonc';
import { readSettings, SECTION, type SettingProblem, type Settings } from '../settings/settings';


/** A getter over flat (`dynamoSnapshot.x.y`) or nested (`{dynamoSnapshot: {x: {y}}}`) keys. */
export function settingsGetter(obj: Record<string, unknown>): (key: string) => unknown {
  const nested = (obj[SECTION] ?? {}) as Record<string, unknown>;
  return (key) => {
    const flat = obj[`${SECTION}.${key}`];
    if (flat !== undefined) return flat;
    if (key === 'lint') {
      // The lint object is read whole; gather its flat `dynamoSnapshot.lint.*` keys as one.
      const prefix = `${SECTION}.lint.`;
      const parts = Object.entries(obj).filter(([k]) => k.startsWith(prefix));
      if (parts.length) return Object.fromEntries(parts.map(([k, v]) => [k.slice(prefix.length), v]));
    }
    let v: unknown = nested;
    for (const part of key.split('.')) {
      if (typeof v !== 'object' || v === null) return undefined;
      v = (v as Record<string, unknown>)[part];
    }
    return v;
  };
}

export interface LoadedSettings {
  settings: Settings;
  problems: SettingProblem[];
}

/** Reads settings from `file`; a missing file gives defaults, an unparsable one throws with the reason. */
export function loadSettingsFile(file: string, mustExist: boolean): LoadedSettings {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (e) {
    if (!mustExist && (e as NodeJS.ErrnoException).code === 'ENOENT') return readSettings(() => undefined);
    throw new Error(`cannot read ${file}: ${e instanceof Error ? e.message : String(e)}`);
  }
  let value: unknown;
  try {
    value = parseJsonc(text);
  } catch (e) {
    throw new Error(`${file} is not valid JSON: ${e instanceof Error ? e.message : String(e)}`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new Error(`${file} must hold an object of settings`);
  return readSettings(settingsGetter(value as Record<string, unknown>));
}

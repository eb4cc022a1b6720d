/**
 * Lint settings per document, pulled with `workspace/configuration` (section `dynamoSnapshot.lint`)
 * and validated with the shared zod schema. Clients without that request (or that answer null) get
 * `initializationOptions.settings`, else the defaults. Cached per workspace folder until `didChangeConfiguration`.
 */
import type { Connection } from 'vscode-languageserver';
import { parseLintSettingsLenient, type LintSettings } from '../shared/lintSettings';

export class SettingsCache {
  private readonly cache = new Map<string, Promise<LintSettings>>();
  private readonly reported = new Set<string>();

  constructor(
    private readonly connection: Connection,
    private readonly canPull: () => boolean,
    private readonly initial: unknown,
    /** Workspace folder URIs, for the cache key. */
    private readonly folders: () => readonly string[],
  ) {}

  /**
   * Settings for a document. Cached per workspace folder (settings are folder-scoped), so opening a
   * file costs no round trip once its folder is known.
   */
  get(uri: string): Promise<LintSettings> {
    const key = this.folderOf(uri);
    let hit = this.cache.get(key);
    if (!hit) {
      hit = this.load(key === '' ? uri : key);
      this.cache.set(key, hit);
    }
    return hit;
  }

  private folderOf(uri: string): string {
    let best = '';
    for (const f of this.folders()) if (uri.startsWith(f.endsWith('/') ? f : f + '/') && f.length > best.length) best = f;
    return best;
  }

  clear(): void {
    this.cache.clear();
  }

  private async load(uri: string): Promise<LintSettings> {
    let raw: unknown = this.initial;
    if (this.canPull()) {
      try {
        const pulled: unknown = await this.connection.workspace.getConfiguration({ scopeUri: uri, section: 'dynamoSnapshot.lint' });
        if (pulled !== null && pulled !== undefined) raw = pulled;
      } catch (e) {
        this.connection.console.warn(`workspace/configuration failed, using defaults: ${e instanceof Error ? e.message : String(e)}`);
      }
    }
    const { settings, problems } = parseLintSettingsLenient(raw);
    for (const p of problems) {
      if (this.reported.has(p)) continue;
      this.reported.add(p);
      this.connection.console.warn(`Setting ${p}; using its default`);
    }
    return settings;
  }
}

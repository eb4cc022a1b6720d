/**
 * Lint settings per document, pulled with `workspace/configuration` (section `dynamoSnapshot.lint`)
 * and validated with the shared zod schema. Clients without that request (or that answer null) get
 * `initializationOptions.settings`, else the defaults. Cached until `didChangeConfiguration`.
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
  ) {}

  get(uri: string): Promise<LintSettings> {
    let hit = this.cache.get(uri);
    if (!hit) {
      hit = this.load(uri);
      this.cache.set(uri, hit);
    }
    return hit;
  }

  clear(): void {
    this.cache.clear();
  }

  forget(uri: string): void {
    this.cache.delete(uri);
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

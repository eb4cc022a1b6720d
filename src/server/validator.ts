/**
 * Validation scheduling: immediately on open and on a lone edit, debounced while typing (or only on save), one
 * validation per document at a time, newest version wins. Each run is timed and reported
 * (`dynamoSnapshot/validationReport`), with a log warning past the `timeBudget.onValidation` limits.
 */
import { performance } from 'node:perf_hooks';
import type { Connection } from 'vscode-languageserver';
import type { TextDocument } from 'vscode-languageserver-textdocument';
import type { Tree } from 'web-tree-sitter';
import { analyze } from '../lint/analyze';
import type { Finding } from '../lint/types';
import type { LintSettings } from '../shared/lintSettings';
import { SERVER_BUSY, VALIDATION_REPORT, type ServerBusy, type ValidationReport } from '../shared/lspProtocol';
import { toDiagnostic } from './convert';
import { ParseTimeout, type DocumentStore } from './documents';
import type { SettingsCache } from './settings';
import { fileInfo } from './paths';

/**
 * Debounce while typing, scaled to what validating this document costs (parse + rules, last run):
 * under CHEAP_MS no delay at all (changes that arrive meanwhile still coalesce into one run), above
 * it twice the cost, at most 200 ms (python-analysis.md §6.1). So a 1k-line file answers at once and
 * a generated 100k-line file is not re-parsed on every keystroke.
 */
export const MAX_DEBOUNCE_MS = 200;
export const CHEAP_MS = 30;

export function debounceFor(lastMs: number | undefined): number {
  if (lastMs === undefined) return MAX_DEBOUNCE_MS;
  return lastMs < CHEAP_MS ? 0 : Math.min(MAX_DEBOUNCE_MS, Math.ceil(2 * lastMs));
}

/**
 * The wait before validating a change: none for the first change after a pause at least as long as
 * the debounce (a lone keystroke gets its diagnostics at once), the debounce while changes keep coming
 * (a burst of typing in a big file is validated once, after it).
 */
export function delayFor(lastMs: number | undefined, sincePreviousChangeMs: number | undefined): number {
  const debounce = debounceFor(lastMs);
  return sincePreviousChangeMs === undefined || sincePreviousChangeMs >= debounce ? 0 : debounce;
}
/** Documents this large get a busy notification: their parse is long enough to show. */
const BUSY_CHARS = 256 * 1024;

export interface Analysis {
  findings: Finding[];
  tree: Tree | undefined;
  settings: LintSettings;
}

export class Validator {
  /** Pending validations: a debounce timer while typing, else an immediate (no timer's 1 ms floor). */
  private readonly timers = new Map<string, { cancel(): void }>();
  /** The last validation's duration per document (ms), for the debounce. */
  private readonly lastMs = new Map<string, number>();
  /** When each document last changed (performance.now()), for the debounce's leading edge. */
  private readonly lastChange = new Map<string, number>();

  constructor(
    private readonly connection: Connection,
    private readonly store: DocumentStore,
    private readonly settings: SettingsCache,
    private readonly workspaceRoots: () => string[],
  ) {}

  /** Findings for the document as it is now (used by code actions and fix-all). */
  async analyzeNow(doc: TextDocument): Promise<Analysis> {
    const settings = await this.settings.get(doc.uri);
    if (!settings.enable) return { findings: [], tree: undefined, settings };
    // Past the error budget the parse is abandoned (a generated megabyte expression, say).
    const tree = this.store.treeFor(doc, settings.timeBudget.onValidation.error);
    const findings = tree ? analyze(tree, doc.getText(), fileInfo(doc.uri, this.workspaceRoots()), settings) : [];
    return { findings, tree, settings };
  }

  schedule(doc: TextDocument, reason: 'open' | 'change' | 'save' | 'config'): void {
    void this.settings.get(doc.uri).then((s) => {
      if (reason === 'change' && s.run === 'onSave') return;
      let delay = 0;
      if (reason === 'change') {
        const now = performance.now();
        const previous = this.lastChange.get(doc.uri);
        this.lastChange.set(doc.uri, now);
        delay = delayFor(this.lastMs.get(doc.uri), previous === undefined ? undefined : now - previous);
      }
      this.timers.get(doc.uri)?.cancel();
      const go = (): void => void this.run(doc.uri);
      if (delay === 0) {
        // On open (and cheap edits) validate as soon as the messages already read are handled:
        // changes that arrived together still coalesce, and nothing waits for a timer.
        const h = setImmediate(go);
        this.timers.set(doc.uri, { cancel: () => clearImmediate(h) });
      } else {
        const h = setTimeout(go, delay);
        this.timers.set(doc.uri, { cancel: () => clearTimeout(h) });
      }
    });
  }

  cancel(uri: string): void {
    this.timers.get(uri)?.cancel();
    this.timers.delete(uri);
    this.lastMs.delete(uri);
    this.lastChange.delete(uri);
    void this.connection.sendDiagnostics({ uri, diagnostics: [] });
  }

  private async run(uri: string): Promise<void> {
    this.timers.delete(uri);
    const doc = this.store.documents.get(uri);
    if (!doc) return;
    const big = doc.getText().length > BUSY_CHARS;
    if (big) void this.connection.sendNotification(SERVER_BUSY, { busy: true } satisfies ServerBusy);
    const t0 = performance.now();
    try {
      const settings = await this.settings.get(uri);
      // Timed from here: parse + rules, the cost the budget and the debounce are about.
      const t1 = performance.now();
      const { findings, tree } = await this.analyzeNow(doc);
      const ms = performance.now() - t1;
      // A newer version arrived while settings were fetched: its own validation is scheduled.
      if (this.store.documents.get(uri)?.version !== doc.version) return;
      const diagnostics = findings.map((f) => toDiagnostic(f, uri));
      await this.connection.sendDiagnostics({ uri, version: doc.version, diagnostics });
      this.report(uri, doc.version, ms, findings.length, !tree, settings);
    } catch (e) {
      if (e instanceof ParseTimeout) {
        this.connection.console.warn(e.message);
        await this.connection.sendDiagnostics({ uri, version: doc.version, diagnostics: [] });
        const settings = await this.settings.get(uri);
        this.report(uri, doc.version, performance.now() - t0, 0, true, settings);
      } else this.connection.console.error(`validation of ${uri} failed: ${e instanceof Error ? e.stack ?? e.message : String(e)}`);
    } finally {
      if (big) void this.connection.sendNotification(SERVER_BUSY, { busy: false } satisfies ServerBusy);
    }
  }

  private report(uri: string, version: number, ms: number, findings: number, skipped: boolean, settings: LintSettings): void {
    const budget = settings.timeBudget.onValidation;
    const state = ms > budget.error ? 'error' : ms > budget.warn ? 'warn' : 'ok';
    if (state !== 'ok') {
      this.connection.console.warn(
        `Validating ${uri} took ${ms.toFixed(0)} ms, over the ${state === 'error' ? budget.error : budget.warn} ms budget (dynamoSnapshot.lint.timeBudget.onValidation)`,
      );
    }
    this.lastMs.set(uri, ms);
    const params: ValidationReport = { uri, version, ms: Math.round(ms * 10) / 10, findings, state, skipped };
    void this.connection.sendNotification(VALIDATION_REPORT, params);
  }
}

/**
 * The rank log documents: a read-only virtual document per rank (and one merged) that follows the
 * run live. Content is the bounded in-memory tail (a header names the file on disk when lines were
 * dropped); a run no longer in memory is read from its files on disk. Changes are announced at most
 * a few times per second per document, and only for documents that are open; an editor scrolled to
 * the end stays at the end, like `tail -f`.
 */
import * as vscode from 'vscode';
import { documentLineOf, formatMergedLog, formatRankLog } from '../../core/views/format';
import { readFileLines, readFileTail } from '../../core/views/logSpill';
import { stripAnsi } from '../../core/views/ansi';
import { Coalescer } from '../../core/views/coalesce';
import type { Ctx } from '../context';
import { LOG_SCHEME, logUri, parseLogUri, type LogTarget } from './logUri';
import type { RunTracker } from './runTracker';

/** ≤ 4 document updates per second: enough to look live, cheap under a flood. */
const DOC_REFRESH_MS = 250;
/** Lines shown before a line opened from the file on disk (and as many after). */
const CONTEXT_LINES = 500;

interface OpenDoc {
  uri: vscode.Uri;
  target: LogTarget;
  refresh: Coalescer;
  lineCount: number;
}

export class LogDocuments implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly emitter = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.emitter.event;
  private readonly open = new Map<string, OpenDoc>();
  private readonly disposables: vscode.Disposable[] = [];
  /** how often each document's content was produced (tests, flood benchmark) */
  renders = 0;

  constructor(
    private readonly ctx: Ctx,
    private readonly tracker: RunTracker,
  ) {
    this.disposables.push(
      this.emitter,
      vscode.workspace.registerTextDocumentContentProvider(LOG_SCHEME, this),
      tracker.onDidChange(({ state, change }) => {
        if (change.lines.size === 0 && !change.run) return;
        for (const d of this.open.values()) {
          if (d.target.runId !== state.runId) continue;
          if ('merged' in d.target || change.lines.has(d.target.rank)) d.refresh.request();
        }
      }),
      vscode.workspace.onDidCloseTextDocument((doc) => this.forget(doc.uri)),
      vscode.workspace.onDidChangeTextDocument((e) => this.follow(e.document)),
      ctx.config.onDidChange((e) => {
        if (e.affectsConfiguration('dynamoSnapshot.logs.showTimestamps')) for (const d of this.open.values()) d.refresh.request();
      }),
    );
  }

  get timestamps(): boolean {
    return this.ctx.config.settings.general['logs.showTimestamps'];
  }

  async provideTextDocumentContent(uri: vscode.Uri): Promise<string> {
    const target = parseLogUri(uri);
    if (!target) return `# Not a Dynamo Snapshot log: ${uri.toString()}`;
    if ('rank' in target && target.around !== undefined) return this.window(target.runId, target.rank, target.around);
    this.track(uri, target);
    this.renders++;
    const state = this.tracker.find(target.runId);
    const files = this.tracker.files(target.runId);
    const timestamps = this.timestamps;
    if (state) {
      const t = target;
      return this.tracker.costs.time('document', () =>
        'merged' in t
          ? formatMergedLog(state.logs.mergedTail(), { timestamps, fullPath: files.merged, what: 'all ranks' })
          : formatRankLog(state.logs.tail(t.rank), { timestamps, fullPath: files.rank(t.rank), what: t.rank }),
      );
    }
    // A run from before this window: its files on disk (arrival times are not kept there).
    const file = 'merged' in target ? files.merged : files.rank(target.rank);
    try {
      const t = await readFileTail(file, this.ctx.config.settings.general['logs.memoryLinesPerRank']);
      const header = t.truncated ? [`# showing the last ${t.lines.length} lines. The whole log is on disk: ${file}`] : [];
      return [...header, ...t.lines.map(stripAnsi)].join('\n');
    } catch (e) {
      return `# No log for ${'merged' in target ? 'the merged view' : target.rank} of run ${target.runId}: ${e instanceof Error ? e.message : String(e)}`;
    }
  }

  /** A stretch of a rank's whole log from disk, around a line that has left memory (not live). */
  private async window(runId: string, rank: string, around: number): Promise<string> {
    await this.tracker.drain(runId);
    const file = this.tracker.files(runId).rank(rank);
    const from = windowStart(around);
    try {
      const w = await readFileLines(file, from, 2 * CONTEXT_LINES + 1);
      return [`# ${rank}: lines ${from}–${from + w.lines.length - 1} of the whole log ${file}`, ...w.lines.map(stripAnsi)].join('\n');
    } catch (e) {
      return `# Cannot read ${file}: ${e instanceof Error ? e.message : String(e)}`;
    }
  }

  private track(uri: vscode.Uri, target: LogTarget): void {
    const key = uri.toString();
    if (this.open.has(key)) return;
    this.open.set(key, { uri, target, lineCount: 0, refresh: new Coalescer(() => this.emitter.fire(uri), DOC_REFRESH_MS) });
  }

  private forget(uri: vscode.Uri): void {
    const d = this.open.get(uri.toString());
    if (!d) return;
    d.refresh.dispose();
    this.open.delete(uri.toString());
  }

  /** Keeps editors that showed the last line showing it after new lines arrive. */
  private follow(doc: vscode.TextDocument): void {
    if (doc.uri.scheme !== LOG_SCHEME) return;
    const d = this.open.get(doc.uri.toString());
    if (!d) return;
    const before = d.lineCount;
    d.lineCount = doc.lineCount;
    for (const ed of vscode.window.visibleTextEditors) {
      if (ed.document !== doc) continue;
      const lastVisible = ed.visibleRanges[ed.visibleRanges.length - 1]?.end.line ?? 0;
      if (lastVisible >= before - 2) ed.revealRange(new vscode.Range(doc.lineCount - 1, 0, doc.lineCount - 1, 0), vscode.TextEditorRevealType.Default);
    }
  }

  /**
   * Opens a rank's (or the merged) log, optionally at a line: `no` is the 1-based line number in
   * the rank's whole log, `text` a line to find (a marker). A line that has left the in-memory tail
   * is opened in the whole log on disk instead.
   */
  async show(target: LogTarget, at?: { no?: number; text?: string }, preserveFocus = false): Promise<vscode.TextEditor> {
    let uri = logUri(target);
    let line: number | undefined;
    if (at?.no !== undefined && 'rank' in target) {
      const state = this.tracker.find(target.runId);
      line = state ? documentLineOf(state.logs.tail(target.rank), at.no) : undefined;
      if (line === undefined) {
        // Gone from memory: show that stretch of the whole log on disk, the line selected (+1: header).
        uri = logUri({ runId: target.runId, rank: target.rank, around: at.no });
        line = at.no - windowStart(at.no) + 1;
      }
    }
    const doc = await vscode.workspace.openTextDocument(uri);
    if (line !== undefined) line = Math.min(line, doc.lineCount - 1);
    else if (at?.text !== undefined) line = findLine(doc, stripAnsi(at.text));
    const editor = await vscode.window.showTextDocument(doc, { preview: false, preserveFocus });
    if (line !== undefined) {
      const range = new vscode.Range(line, 0, line, doc.lineAt(line).text.length);
      editor.selection = new vscode.Selection(range.start, range.end);
      editor.revealRange(range, vscode.TextEditorRevealType.InCenter);
    } else if (!at) {
      editor.revealRange(new vscode.Range(doc.lineCount - 1, 0, doc.lineCount - 1, 0));
    }
    return editor;
  }

  /** Open log documents (tests, flood benchmark). */
  openDocuments(): LogTarget[] {
    return [...this.open.values()].map((d) => d.target);
  }

  dispose(): void {
    for (const d of this.open.values()) d.refresh.dispose();
    this.open.clear();
    for (const d of this.disposables.splice(0)) d.dispose();
  }
}

/** The last line equal to `text`, else the last line containing it (markers are searched from the end: the latest occurrence). */
function findLine(doc: vscode.TextDocument, text: string): number | undefined {
  const needle = text.trim();
  if (!needle) return undefined;
  let contains: number | undefined;
  for (let i = doc.lineCount - 1; i >= 0; i--) {
    const l = doc.lineAt(i).text;
    if (l === text || l.endsWith(needle)) return i;
    if (contains === undefined && l.includes(needle)) contains = i;
  }
  return contains;
}

function windowStart(around: number): number {
  return Math.max(1, around - CONTEXT_LINES);
}

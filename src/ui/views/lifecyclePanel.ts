/**
 * The Lifecycle panel (webview): the timeline of the current run and the history of past runs.
 * The extension builds the model (core/views/timeline.ts) and posts it, coalesced to a few times a
 * second and only while the panel is visible; messages from the webview are parsed with zod before
 * they are acted on. For tests, the panel keeps what it received (run events, in short form) and
 * what the webview reported drawing.
 */
import * as vscode from 'vscode';
import { Coalescer } from '../../core/views/coalesce';
import { buildHistory, buildTimeline, type RunSummary } from '../../core/views/timeline';
import type { RunEvent } from '../../core/workflow/types';
import { FromWebview, type ToWebview } from '../../shared/webviewProtocol';
import type { Ctx } from '../context';
import type { LogDocuments } from './logDocuments';
import type { RunTracker } from './runTracker';
import { lifecycleHtml } from './webviewHtml';

const PANEL_REFRESH_MS = 250;
/** Short forms of received events kept for tests (log lines are only counted). */
const MAX_RECEIVED = 5000;

export type ReceivedEvent =
  | { type: 'run-started' | 'run-ended'; runId: string }
  | { type: 'step'; runId: string; step: string; state: string }
  | { type: 'rank-marker'; runId: string; rank: string; phase: string };

export type Rendered = Extract<FromWebview, { type: 'rendered' }>;

export class LifecyclePanel implements vscode.Disposable {
  private panel?: vscode.WebviewPanel;
  private readonly refresh: Coalescer;
  private readonly panelDisposables: vscode.Disposable[] = [];
  private readonly disposables: vscode.Disposable[] = [];
  private history: RunSummary[] = [];
  private ready = false;
  readonly received: ReceivedEvent[] = [];
  /** log lines received per rank (counted, not kept: a flood must not grow this) */
  readonly receivedLines = new Map<string, number>();
  lastRendered?: Rendered;
  posts = 0;
  private readonly renderedEmitter = new vscode.EventEmitter<Rendered>();
  /** Fires each time the webview reports what it drew. */
  readonly onDidRender = this.renderedEmitter.event;

  constructor(
    private readonly ctx: Ctx,
    private readonly tracker: RunTracker,
    private readonly docs: LogDocuments,
    private readonly loadHistory: () => Promise<RunSummary[]>,
  ) {
    this.refresh = new Coalescer(() => this.post(), PANEL_REFRESH_MS, { paused: true });
    this.disposables.push(
      this.renderedEmitter,
      ctx.runEvents.event((e) => this.onRunEvent(e)),
    );
  }

  get isOpen(): boolean {
    return this.panel !== undefined;
  }

  show(column: vscode.ViewColumn = vscode.ViewColumn.Active): void {
    if (this.panel) {
      this.panel.reveal(column, false);
      return;
    }
    const root = vscode.Uri.joinPath(this.ctx.extension.extensionUri, 'media', 'webview');
    const panel = vscode.window.createWebviewPanel('dynamoSnapshot.lifecyclePanel', 'Snapshot Lifecycle', column, {
      enableScripts: true,
      localResourceRoots: [root],
      enableFindWidget: true,
    });
    this.panel = panel;
    this.ready = false;
    this.panelDisposables.push(
      panel.webview.onDidReceiveMessage((m: unknown) => this.onMessage(m)),
      panel.onDidChangeViewState((e) => this.refresh.setPaused(!e.webviewPanel.visible || !this.ready)),
      panel.onDidDispose(() => this.closed()),
    );
    panel.webview.html = lifecycleHtml(panel.webview, this.ctx.extension.extensionUri);
    void this.reloadHistory();
  }

  private closed(): void {
    this.panel = undefined;
    this.ready = false;
    this.refresh.setPaused(true);
    for (const d of this.panelDisposables.splice(0)) d.dispose();
  }

  private onRunEvent(e: RunEvent): void {
    if (!this.panel) return;
    if (e.type === 'log-lines') this.receivedLines.set(e.rank, (this.receivedLines.get(e.rank) ?? 0) + e.lines.length);
    else this.received.push(shortForm(e));
    if (this.received.length > MAX_RECEIVED) this.received.splice(0, this.received.length - MAX_RECEIVED);
    // The tracker has applied the event already (it subscribed first), so the model is current.
    if (e.type === 'run-ended') void this.reloadHistory();
    this.refresh.request();
  }

  private async reloadHistory(): Promise<void> {
    try {
      this.history = await this.loadHistory();
    } catch (e) {
      this.ctx.log.warn(`lifecycle panel: could not read the run records: ${e instanceof Error ? e.message : String(e)}`);
    }
    this.refresh.request();
  }

  private onMessage(raw: unknown): void {
    const parsed = FromWebview.safeParse(raw);
    if (!parsed.success) {
      this.ctx.log.warn(`lifecycle panel: ignored a malformed message: ${parsed.error.issues[0]?.message ?? ''}`);
      return;
    }
    const m = parsed.data;
    switch (m.type) {
      case 'ready':
        this.ready = true;
        this.refresh.setPaused(!this.panel?.visible);
        this.refresh.request();
        break;
      case 'rendered':
        this.lastRendered = m;
        this.renderedEmitter.fire(m);
        break;
      case 'openRankLog': {
        const run = this.tracker.current;
        if (run) {
          this.docs.show({ runId: run.runId, rank: m.rank }, m.line ? { text: m.line } : undefined).then(undefined, (e: unknown) =>
            this.ctx.log.warn(`lifecycle panel: could not open the log of ${m.rank}: ${e instanceof Error ? e.message : String(e)}`),
          );
        }
        break;
      }
    }
  }

  /** The message the panel gets now (also used by tests to check the model without a webview). */
  message(): ToWebview {
    const run = this.tracker.current;
    const history = buildHistory(this.history, run);
    return { type: 'model', model: run ? buildTimeline(run, history) : null, history };
  }

  private post(): void {
    if (!this.panel || !this.ready) return;
    this.posts++;
    const message = this.tracker.costs.time('panelModel', () => this.message());
    void this.panel.webview.postMessage(message);
  }

  dispose(): void {
    this.refresh.dispose();
    this.panel?.dispose();
    for (const d of this.disposables.splice(0)) d.dispose();
  }
}

function shortForm(e: Exclude<RunEvent, { type: 'log-lines' }>): ReceivedEvent {
  switch (e.type) {
    case 'run-started':
    case 'run-ended':
      return { type: e.type, runId: e.runId };
    case 'step':
      return { type: 'step', runId: e.runId, step: e.step.name, state: e.step.state };
    case 'rank-marker':
      return { type: 'rank-marker', runId: e.runId, rank: e.rank, phase: e.phase };
  }
}

/**
 * The Ranks view: one node per rank of the current run (state icon, current phase, last line);
 * children are its lifecycle markers with times and its latest warnings and errors, each jumping
 * to its line in the rank log. Refreshes are coalesced to at most a few per second, and happen
 * only while the view is visible, so a log flood costs the tree almost nothing.
 */
import * as vscode from 'vscode';
import { Coalescer } from '../../core/views/coalesce';
import { PHASE_TITLES, formatOffset } from '../../core/views/phases';
import type { RankIssue, RankMarker, RankSummary, RunState } from '../../core/views/runState';
import { laneMarkers } from '../../core/views/timeline';
import { parseLogLine } from '../../core/workflow/logLine';
import { phaseIcon } from './icons';
import type { RunTracker } from './runTracker';

/** ≤ 3 refreshes a second (vscode-style.md §4.5: 200–500 ms). */
export const TREE_REFRESH_MS = 333;
const DESCRIPTION_CHARS = 100;

type Node =
  | { kind: 'rank'; runId: string; rank: string }
  | { kind: 'marker'; runId: string; rank: string; marker: RankMarker; index: number }
  | { kind: 'issue'; runId: string; rank: string; issue: RankIssue }
  | { kind: 'more'; runId: string; rank: string; hidden: number };

export class RanksTree implements vscode.TreeDataProvider<Node>, vscode.Disposable {
  private readonly emitter = new vscode.EventEmitter<Node | Node[] | undefined>();
  readonly onDidChangeTreeData = this.emitter.event;
  readonly view: vscode.TreeView<Node>;
  private readonly refresh: Coalescer;
  /** Node objects are kept per rank so a refresh of one rank can name the same object the tree holds. */
  private nodes = new Map<string, Node & { kind: 'rank' }>();
  private shownRun?: string;
  private dirtyRanks = new Set<string>();
  private dirtyAll = true;
  private readonly disposables: vscode.Disposable[] = [];

  constructor(private readonly tracker: RunTracker) {
    this.view = vscode.window.createTreeView('dynamoSnapshot.ranks', { treeDataProvider: this, showCollapseAll: true });
    this.refresh = new Coalescer(() => this.flush(), TREE_REFRESH_MS, { paused: !this.view.visible });
    this.disposables.push(
      this.view,
      this.emitter,
      this.view.onDidChangeVisibility((e) => this.refresh.setPaused(!e.visible)),
      tracker.onDidChange(({ state, change }) => {
        if (state !== tracker.current) return;
        if (state.runId !== this.shownRun || change.rankAdded || change.run) this.dirtyAll = true;
        for (const r of change.ranks) this.dirtyRanks.add(r);
        this.refresh.request();
      }),
    );
  }

  /** Tree refreshes so far (the flood test shows they stay few). */
  get refreshes(): number {
    return this.refresh.fired;
  }

  private flush(): void {
    const run = this.tracker.current;
    if (this.dirtyAll || run?.runId !== this.shownRun) {
      this.dirtyAll = false;
      this.dirtyRanks.clear();
      this.shownRun = run?.runId;
      this.nodes = new Map();
      this.view.description = run ? describeRun(run) : undefined;
      this.emitter.fire(undefined);
      return;
    }
    const changed = [...this.dirtyRanks].map((r) => this.nodes.get(r)).filter((n): n is Node & { kind: 'rank' } => n !== undefined);
    this.dirtyRanks.clear();
    if (changed.length) this.emitter.fire(changed);
  }

  getChildren(node?: Node): Node[] {
    return this.tracker.costs.time('ranksTree', () => this.children(node));
  }

  private children(node?: Node): Node[] {
    const run = this.tracker.current;
    if (!run) return [];
    if (!node) {
      return run.ranks().map((r) => {
        let n = this.nodes.get(r.rank);
        if (!n || n.runId !== run.runId) {
          n = { kind: 'rank', runId: run.runId, rank: r.rank };
          this.nodes.set(r.rank, n);
        }
        return n;
      });
    }
    if (node.kind !== 'rank') return [];
    const r = run.rank(node.rank);
    if (!r) return [];
    const markers: Node[] = r.markers.map((marker, index) => ({ kind: 'marker', runId: run.runId, rank: r.rank, marker, index }));
    const issues: Node[] = r.issues.map((issue) => ({ kind: 'issue', runId: run.runId, rank: r.rank, issue }));
    const hidden = r.warnings + r.errors - r.issues.length;
    return [...markers, ...(hidden > 0 ? [{ kind: 'more', runId: run.runId, rank: r.rank, hidden } as Node] : []), ...issues];
  }

  getParent(node: Node): Node | undefined {
    return node.kind === 'rank' ? undefined : this.nodes.get(node.rank);
  }

  getTreeItem(node: Node): vscode.TreeItem {
    const run = this.tracker.find(node.runId);
    switch (node.kind) {
      case 'rank':
        return rankItem(node, run?.rank(node.rank), run);
      case 'marker': {
        const item = new vscode.TreeItem(PHASE_TITLES[node.marker.phase]);
        item.id = `${node.runId}/${node.rank}/m${node.index}`;
        item.description = `${run ? formatOffset(node.marker.at - run.startedAt) : ''}  ${message(node.marker.line)}`;
        item.tooltip = new vscode.MarkdownString().appendMarkdown(`**${PHASE_TITLES[node.marker.phase]}** on ${node.rank} at ${new Date(node.marker.at).toLocaleTimeString()}\n\n`).appendCodeblock(node.marker.line, 'log');
        item.iconPath = phaseIcon(node.marker.phase, 'idle');
        item.contextValue = 'rankMarker';
        item.command = { command: 'dynamoSnapshot.showRankLog', title: 'Show in Log', arguments: [{ runId: node.runId, rank: node.rank, text: node.marker.line }] };
        return item;
      }
      case 'issue': {
        const item = new vscode.TreeItem(clip(node.issue.text, DESCRIPTION_CHARS));
        item.id = `${node.runId}/${node.rank}/l${node.issue.no}`;
        item.description = `line ${node.issue.no}`;
        item.tooltip = node.issue.text;
        item.iconPath = new vscode.ThemeIcon(node.issue.severity === 'error' ? 'error' : 'warning', new vscode.ThemeColor(node.issue.severity === 'error' ? 'list.errorForeground' : 'list.warningForeground'));
        item.contextValue = `rankIssue:${node.issue.severity}`;
        item.command = { command: 'dynamoSnapshot.showRankLog', title: 'Show in Log', arguments: [{ runId: node.runId, rank: node.rank, line: node.issue.no }] };
        return item;
      }
      case 'more': {
        const item = new vscode.TreeItem(`${node.hidden} earlier warnings and errors`);
        item.id = `${node.runId}/${node.rank}/more`;
        item.description = 'in the whole log';
        item.iconPath = new vscode.ThemeIcon('ellipsis');
        item.command = { command: 'dynamoSnapshot.showRankLog', title: 'Show Log', arguments: [{ runId: node.runId, rank: node.rank }] };
        return item;
      }
    }
  }

  dispose(): void {
    this.refresh.dispose();
    for (const d of this.disposables.splice(0)) d.dispose();
  }
}

function rankItem(node: { runId: string; rank: string }, r: RankSummary | undefined, run: RunState | undefined): vscode.TreeItem {
  const hasChildren = r !== undefined && r.markers.length + r.issues.length > 0;
  const item = new vscode.TreeItem(node.rank, hasChildren ? vscode.TreeItemCollapsibleState.Collapsed : vscode.TreeItemCollapsibleState.None);
  item.id = `${node.runId}/${node.rank}`;
  // The current phase counts the main process's engine-wide markers too (pause, ready, restore…).
  const current = run ? laneMarkers(run, node.rank).at(-1)?.phase : r?.phase;
  const phase = current ? PHASE_TITLES[current] : run?.active ? 'starting' : 'no marker';
  item.description = `${phase} · ${clip(message(r?.lastLine ?? ''), DESCRIPTION_CHARS)}`;
  const health = r && r.errors > 0 ? 'error' : r && r.warnings > 0 ? 'warning' : current ? 'ok' : 'idle';
  item.iconPath = phaseIcon(current, health);
  const md = new vscode.MarkdownString(undefined, true);
  md.appendMarkdown(`**${node.rank}** — ${phase}\n\n`);
  md.appendMarkdown(`${r?.lines ?? 0} lines · $(warning) ${r?.warnings ?? 0} · $(error) ${r?.errors ?? 0}\n\n`);
  if (r?.lastLine) md.appendCodeblock(r.lastLine, 'log');
  item.tooltip = md;
  item.contextValue = 'rank';
  item.command = { command: 'dynamoSnapshot.showRankLog', title: 'Show Rank Log', arguments: [{ runId: node.runId, rank: node.rank }] };
  item.accessibilityInformation = { label: `Rank ${node.rank}, ${phase}, ${r?.warnings ?? 0} warnings, ${r?.errors ?? 0} errors` };
  return item;
}

function describeRun(run: RunState): string {
  const state = run.active ? 'running' : (run.outcome ?? 'ended');
  return `${run.worker ? `${run.worker} · ` : ''}${state}`;
}

/** A line without its rank prefix and logging header, for a one-line description (the tooltip keeps it all). */
function message(line: string): string {
  return parseLogLine(line).message || line;
}

function clip(s: string, n: number): string {
  return s.length > n ? `${s.slice(0, n - 1)}…` : s;
}

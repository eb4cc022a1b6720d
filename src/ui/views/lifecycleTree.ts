/**
 * The Lifecycle view: the current run's steps with state icons, verdicts and timings; children are
 * each step's evidence (a log line opens the rank log at it, a diagnostic opens its file and line).
 */
import * as vscode from 'vscode';
import { Coalescer } from '../../core/views/coalesce';
import { formatDuration } from '../../core/views/phases';
import type { RunState } from '../../core/views/runState';
import { STEP_NAMES, STEP_TITLES, type Evidence, type StepName, type StepRecord } from '../../core/workflow/types';
import { evidenceIcon, stepIcon } from './icons';
import type { RunTracker } from './runTracker';
import { TREE_REFRESH_MS } from './ranksTree';

type Node = { kind: 'step'; runId: string; name: StepName } | { kind: 'evidence'; runId: string; step: StepName; index: number; evidence: Evidence };

export class LifecycleTree implements vscode.TreeDataProvider<Node>, vscode.Disposable {
  private readonly emitter = new vscode.EventEmitter<Node | undefined>();
  readonly onDidChangeTreeData = this.emitter.event;
  readonly view: vscode.TreeView<Node>;
  private readonly refresh: Coalescer;
  private readonly disposables: vscode.Disposable[] = [];

  constructor(private readonly tracker: RunTracker) {
    this.view = vscode.window.createTreeView('dynamoSnapshot.lifecycle', { treeDataProvider: this });
    this.refresh = new Coalescer(() => this.flush(), TREE_REFRESH_MS, { paused: !this.view.visible });
    this.disposables.push(
      this.view,
      this.emitter,
      this.view.onDidChangeVisibility((e) => this.refresh.setPaused(!e.visible)),
      tracker.onDidChange(({ state, change }) => {
        // Running steps show a live duration, so log lines of the current run refresh it too (coalesced).
        if (state === tracker.current && (change.steps || change.run || state.active)) this.refresh.request();
      }),
    );
  }

  private flush(): void {
    const run = this.tracker.current;
    this.view.description = run ? `${run.runId}${run.active ? '' : ` · ${run.outcome ?? 'ended'}`}` : undefined;
    this.emitter.fire(undefined);
  }

  getChildren(node?: Node): Node[] {
    const run = this.tracker.current;
    if (!run) return [];
    if (!node) {
      const names = run.plannedSteps.length ? run.plannedSteps : STEP_NAMES.filter((n) => run.steps.has(n));
      return names.map((name) => ({ kind: 'step', runId: run.runId, name }));
    }
    if (node.kind !== 'step') return [];
    const step = run.steps.get(node.name);
    return (step?.evidence ?? []).map((evidence, index) => ({ kind: 'evidence', runId: run.runId, step: node.name, index, evidence }));
  }

  getTreeItem(node: Node): vscode.TreeItem {
    const run = this.tracker.find(node.runId);
    if (node.kind === 'step') return stepItem(node.runId, node.name, run?.steps.get(node.name), run);
    const e = node.evidence;
    const item = new vscode.TreeItem(e.text.length > 160 ? `${e.text.slice(0, 159)}…` : e.text);
    item.id = `${node.runId}/${node.step}/${node.index}`;
    item.description = [e.rank, e.valueMs !== undefined ? formatDuration(e.valueMs) : undefined, e.location ? `${vscode.workspace.asRelativePath(e.location.file)}:${e.location.line + 1}` : undefined]
      .filter(Boolean)
      .join(' · ');
    item.tooltip = e.text;
    item.iconPath = evidenceIcon(e.kind);
    item.contextValue = `evidence:${e.kind}`;
    if (e.location) {
      item.command = {
        command: 'vscode.open',
        title: 'Open',
        arguments: [vscode.Uri.file(e.location.file), { selection: new vscode.Range(e.location.line, 0, e.location.line, 0) } satisfies vscode.TextDocumentShowOptions],
      };
    } else if (e.rank && e.kind === 'log') {
      item.command = { command: 'dynamoSnapshot.showRankLog', title: 'Show in Log', arguments: [{ runId: node.runId, rank: e.rank, text: e.text }] };
    }
    return item;
  }

  dispose(): void {
    this.refresh.dispose();
    for (const d of this.disposables.splice(0)) d.dispose();
  }
}

function stepItem(runId: string, name: StepName, s: StepRecord | undefined, run: RunState | undefined): vscode.TreeItem {
  const state = s?.state ?? 'pending';
  const item = new vscode.TreeItem(STEP_TITLES[name], s && s.evidence.length > 0 ? vscode.TreeItemCollapsibleState.Collapsed : vscode.TreeItemCollapsibleState.None);
  item.id = `${runId}/${name}`;
  const end = s?.endedAt ?? (state === 'running' ? Date.now() : undefined);
  const duration = s?.startedAt !== undefined && end !== undefined ? formatDuration(end - s.startedAt) : '';
  item.description = [s?.verdict, duration].filter(Boolean).join(' · ') || state;
  const md = new vscode.MarkdownString();
  md.appendMarkdown(`**${STEP_TITLES[name]}** — ${state}${duration ? ` in ${duration}` : ''}\n\n`);
  if (s?.verdict) md.appendText(s.verdict);
  if (s?.startedAt !== undefined && run) md.appendMarkdown(`\n\nstarted +${((s.startedAt - run.startedAt) / 1000).toFixed(2)} s after the run began`);
  item.tooltip = md;
  item.iconPath = stepIcon(state);
  item.contextValue = `step:${state}`;
  item.accessibilityInformation = { label: `${STEP_TITLES[name]}: ${state}${s?.verdict ? `, ${s.verdict}` : ''}${duration ? `, ${duration}` : ''}` };
  return item;
}

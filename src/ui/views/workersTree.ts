/**
 * The Workers view: every worker profile (the built-in local demo and the configured ones) with its
 * connection state; a connected worker's children are the agent's hello: host, GPUs, driver, and
 * the tool versions (cuda-checkpoint, CRIU, Python). Context values drive the inline actions
 * (`worker:connected` → Disconnect, `worker:disconnected` → Connect; Run and Edit on both).
 */
import * as vscode from 'vscode';
import type { HelloEvent } from '../../core/protocol/agentEvents';
import { Coalescer } from '../../core/views/coalesce';
import { helloDetails, type HelloDetail } from '../../core/views/hello';

export type ConnectionState = 'connected' | 'connecting' | 'disconnected' | 'failed';

export interface WorkerInfo {
  name: string;
  description?: string;
  transport: string;
  backend: string;
  builtin: boolean;
  selected: boolean;
  state: ConnectionState;
  hello?: HelloEvent;
  error?: string;
  /** what the workflow knows of a source it started, e.g. "source running (reattached)" */
  source?: string;
}

/** What the Workers view needs from the workflow (adapted in workflowAdapter.ts). */
export interface WorkersSource {
  list(): WorkerInfo[];
  /** Makes `name` the selected worker (the one Run Snapshot Smoke Test uses). */
  select(name: string): Promise<void>;
  readonly onDidChange: vscode.Event<void>;
}

type Node = { kind: 'worker'; name: string } | { kind: 'detail'; worker: string; detail: HelloDetail; index: number };

export class WorkersTree implements vscode.TreeDataProvider<Node>, vscode.Disposable {
  private readonly emitter = new vscode.EventEmitter<Node | undefined>();
  readonly onDidChangeTreeData = this.emitter.event;
  readonly view: vscode.TreeView<Node>;
  private readonly refreshing: Coalescer;
  private readonly disposables: vscode.Disposable[] = [];

  constructor(private readonly source: WorkersSource) {
    this.view = vscode.window.createTreeView('dynamoSnapshot.workers', { treeDataProvider: this });
    this.refreshing = new Coalescer(() => this.emitter.fire(undefined), 200, { paused: !this.view.visible });
    this.disposables.push(
      this.view,
      this.emitter,
      this.view.onDidChangeVisibility((e) => this.refreshing.setPaused(!e.visible)),
      source.onDidChange(() => this.refresh()),
    );
  }

  refresh(): void {
    this.refreshing.request();
  }

  getChildren(node?: Node): Node[] {
    const workers = this.source.list();
    if (!node) return workers.map((w) => ({ kind: 'worker', name: w.name }));
    if (node.kind !== 'worker') return [];
    const w = workers.find((x) => x.name === node.name);
    if (!w) return [];
    const details: HelloDetail[] = w.hello ? helloDetails(w.hello) : [];
    if (w.error) details.unshift({ label: 'error', value: w.error, level: 'error' });
    return details.map((detail, index) => ({ kind: 'detail', worker: w.name, detail, index }));
  }

  getTreeItem(node: Node): vscode.TreeItem {
    if (node.kind === 'detail') {
      const d = node.detail;
      const item = new vscode.TreeItem(d.label);
      item.id = `${node.worker}/${node.index}`;
      item.description = d.value;
      item.tooltip = `${d.label}: ${d.value}`;
      item.iconPath = new vscode.ThemeIcon(
        d.level === 'error' ? 'error' : d.level === 'warning' ? 'warning' : (d.icon ?? 'info'),
        d.level === 'error' ? new vscode.ThemeColor('list.errorForeground') : d.level === 'warning' ? new vscode.ThemeColor('list.warningForeground') : undefined,
      );
      item.contextValue = 'workerDetail';
      return item;
    }
    const w = this.source.list().find((x) => x.name === node.name);
    const connected = w?.state === 'connected';
    const hasChildren = Boolean(w?.hello || w?.error);
    const item = new vscode.TreeItem(node.name, hasChildren ? (connected ? vscode.TreeItemCollapsibleState.Expanded : vscode.TreeItemCollapsibleState.Collapsed) : vscode.TreeItemCollapsibleState.None);
    item.id = `worker/${node.name}`;
    const parts = [w?.selected ? 'selected' : undefined, w?.state, w?.source, w ? `${w.transport} · ${w.backend}` : undefined, w?.builtin ? 'built-in' : undefined];
    item.description = parts.filter(Boolean).join(' · ');
    item.iconPath = stateIcon(w?.state ?? 'disconnected', Boolean(w?.selected));
    const md = new vscode.MarkdownString();
    md.appendMarkdown(`**${node.name}**${w?.selected ? ' (selected)' : ''} — ${w?.state ?? 'unknown'}\n\n`);
    if (w?.description) md.appendText(`${w.description}\n\n`);
    if (w?.source) md.appendText(`${w.source}\n\n`);
    // The hello comes from the worker: text, not Markdown (a hostile hostname must not render links).
    if (w?.hello) md.appendText(`${w.hello.hostname} · ${w.hello.gpus.length} GPU(s)${w.hello.driverVersion ? ` · driver ${w.hello.driverVersion}` : ''}`);
    item.tooltip = md;
    item.contextValue = connected ? 'worker:connected' : 'worker:disconnected';
    item.accessibilityInformation = { label: `Worker ${node.name}, ${w?.state ?? 'unknown'}${w?.selected ? ', selected' : ''}` };
    return item;
  }

  dispose(): void {
    this.refreshing.dispose();
    for (const d of this.disposables.splice(0)) d.dispose();
  }
}

function stateIcon(state: ConnectionState, selected: boolean): vscode.ThemeIcon {
  switch (state) {
    case 'connected':
      return new vscode.ThemeIcon('vm-active', new vscode.ThemeColor('testing.iconPassed'));
    case 'connecting':
      return new vscode.ThemeIcon('loading~spin');
    case 'failed':
      return new vscode.ThemeIcon('vm-outline', new vscode.ThemeColor('testing.iconFailed'));
    case 'disconnected':
      return new vscode.ThemeIcon(selected ? 'vm' : 'vm-outline');
  }
}

/**
 * The Snapshots view: the namespace's PodSnapshots → their content → SnapshotJobs → restored pods
 * (core/views/snapshots). While the view is visible it keeps one `kubectl get --watch
 * --output-watch-events -o json` per resource (PodSnapshot, PodSnapshotContent, SnapshotJob, pods)
 * and feeds the store; hidden, every watch is stopped — nothing polls. Redraws are coalesced (at most
 * five a second), and rows are built only for what is expanded, so hundreds of objects stay cheap
 * (bench/views/snapshots.bench.ts). A watch that ends is said in the view and restarted, boundedly.
 */
import * as vscode from 'vscode';
import { Coalescer } from '../../core/views/coalesce';
import { SnapshotStore, type WatchedResource } from '../../core/views/snapshots/store';
import { childRows, snapshotRows, type SnapshotRow } from '../../core/views/snapshots/tree';
import type { KubeWatch } from '../../transport/kubeWatch';
import type { Ctx } from '../context';
import { snapshotsTarget, type ProfileSource, type SnapshotsTarget } from './snapshotsCluster';

const RESOURCES: readonly WatchedResource[] = ['podsnapshot', 'podsnapshotcontent', 'snapshotjob', 'pods'];
/** A watch that ended is restarted after this long, at most this many times per showing of the view. */
const RESTART_MS = 5000;
const MAX_RESTARTS = 20;

/** What identifies the cluster view: the profile's transport and observe settings, kubectl's settings. */
function targetKey(t: SnapshotsTarget | { none: string }): string {
  return 'none' in t ? `none:${t.none}` : JSON.stringify([t.profile.name, t.profile.transport, t.profile.kubernetes, t.env.kubectlPath, t.env.kubeconfig]);
}

const ICON: Record<SnapshotRow['state'], vscode.ThemeIcon> = {
  ready: new vscode.ThemeIcon('pass', new vscode.ThemeColor('testing.iconPassed')),
  failed: new vscode.ThemeIcon('error', new vscode.ThemeColor('testing.iconFailed')),
  pending: new vscode.ThemeIcon('circle-large-outline', new vscode.ThemeColor('disabledForeground')),
  running: new vscode.ThemeIcon('loading~spin'),
  info: new vscode.ThemeIcon('info'),
};
const KIND_ICON: Partial<Record<SnapshotRow['kind'], string>> = { snapshot: 'device-camera', content: 'database', job: 'run-all', restored: 'history' };

export class SnapshotsTree implements vscode.TreeDataProvider<SnapshotRow>, vscode.Disposable {
  private readonly emitter = new vscode.EventEmitter<SnapshotRow | undefined>();
  readonly onDidChangeTreeData = this.emitter.event;
  readonly view: vscode.TreeView<SnapshotRow>;
  private readonly refreshing: Coalescer;
  private readonly disposables: vscode.Disposable[] = [];
  private watches: KubeWatch[] = [];
  private restarts = 0;
  private restartTimer: ReturnType<typeof setTimeout> | undefined;
  /** the store of the current showing (replaced when the target changes or the view opens again) */
  store: SnapshotStore = new SnapshotStore(undefined);
  target: SnapshotsTarget | { none: string } = { none: 'not shown yet' };
  /** watch events applied since the view was shown (for the tests and the output channel) */
  events = 0;

  constructor(private readonly ctx: Ctx, private readonly profiles: () => ProfileSource | undefined) {
    this.view = vscode.window.createTreeView('dynamoSnapshot.snapshots', { treeDataProvider: this, canSelectMany: true });
    this.refreshing = new Coalescer(() => this.redraw(), 200, { paused: !this.view.visible });
    this.disposables.push(
      this.view,
      this.emitter,
      this.view.onDidChangeVisibility((e) => {
        this.refreshing.setPaused(!e.visible);
        if (e.visible) this.start();
        else this.stop();
      }),
      ctx.config.onDidChange(() => this.restartIfShown(true)),
      vscode.workspace.onDidGrantWorkspaceTrust(() => this.restartIfShown()),
    );
    // The workflow area registered first, so its profiles are readable now.
    this.announce();
    if (this.view.visible) this.start();
  }

  /** The view is contributed only while a kubernetes worker profile exists (`dynamoSnapshot.hasKubernetesWorker`). */
  private announce(): void {
    const has = (this.profiles()?.profiles() ?? []).some((p) => p.transport.kind === 'kubernetes');
    if (has === this.hasKube) return;
    this.hasKube = has;
    void vscode.commands.executeCommand('setContext', 'dynamoSnapshot.hasKubernetesWorker', has);
  }

  private hasKube: boolean | undefined;

  /** The selected worker, a profile or a setting changed: if that changes what is shown, show the new target. */
  restartIfShown(force = false): void {
    this.announce();
    if (!this.view.visible) return;
    if (!force && targetKey(snapshotsTarget(this.ctx, this.profiles())) === targetKey(this.target)) return;
    this.stop();
    this.start();
  }

  private start(): void {
    this.stop();
    this.restarts = 0;
    this.target = snapshotsTarget(this.ctx, this.profiles());
    this.store = new SnapshotStore('none' in this.target ? undefined : this.target.profile.transport.namespace);
    this.events = 0;
    if ('none' in this.target) {
      this.view.message = this.target.none;
      this.view.description = undefined;
      this.refreshing.request();
      return;
    }
    this.view.message = undefined;
    this.view.description = `${this.target.profile.name} · ${this.target.where}`;
    for (const r of RESOURCES) this.watch(r);
    this.refreshing.request();
  }

  private watch(resource: WatchedResource): void {
    if ('none' in this.target) return;
    const store = this.store;
    const w = this.target.transport.watch(
      resource,
      (e) => {
        if (this.store !== store) return;
        this.events++;
        if (store.apply(resource, e.type, e.object)) this.refreshing.request();
      },
      (why) => {
        if (this.store !== store) return;
        this.ctx.log.warn(`Snapshots view: kubectl get ${resource} --watch ended: ${why}`);
        store.errors.set(resource, /doesn't have a resource type/.test(why) ? 'this cluster does not serve it (is ai-dynamo/snapshot installed?)' : why);
        this.refreshing.request();
        this.watches = this.watches.filter((x) => x !== w);
        if (this.view.visible && this.restarts++ < MAX_RESTARTS) {
          this.restartTimer = setTimeout(() => {
            if (this.store === store && this.view.visible) {
              store.errors.delete(resource);
              this.watch(resource);
            }
          }, RESTART_MS);
        }
      },
    );
    this.watches.push(w);
  }

  private stop(): void {
    if (this.restartTimer) clearTimeout(this.restartTimer);
    for (const w of this.watches) w.stop();
    this.watches = [];
  }

  private redraw(): void {
    if (!('none' in this.target)) {
      const n = this.store.snapshots.size;
      this.view.message = n === 0 && this.store.errors.size === 0 ? `No PodSnapshot in ${this.target.where} yet.` : undefined;
    }
    this.emitter.fire(undefined);
  }

  /** Watches running now (for the tests: none while hidden). */
  get watching(): number {
    return this.watches.length;
  }

  getChildren(row?: SnapshotRow): SnapshotRow[] {
    return row ? childRows(this.store, row) : snapshotRows(this.store);
  }

  getTreeItem(row: SnapshotRow): vscode.TreeItem {
    const item = new vscode.TreeItem(row.label, row.expandable ? vscode.TreeItemCollapsibleState.Collapsed : vscode.TreeItemCollapsibleState.None);
    item.id = row.id;
    item.description = row.description;
    // Cluster text is shown as text (a tooltip string is never rendered as markdown).
    item.tooltip = row.tooltip;
    const kindIcon = KIND_ICON[row.kind];
    item.iconPath = row.kind === 'detail' || row.kind === 'message' || !kindIcon ? ICON[row.state] : new vscode.ThemeIcon(kindIcon, ICON[row.state].color);
    item.contextValue = `snapshots:${row.kind}`;
    if (row.object) item.accessibilityInformation = { label: `${row.object.kind} ${row.label}, ${row.description ?? ''}` };
    return item;
  }

  dispose(): void {
    this.stop();
    this.refreshing.dispose();
    for (const d of this.disposables) d.dispose();
  }
}

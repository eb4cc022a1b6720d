/**
 * The views area as one object, registered as `ctx.services.get('views')`: the run tracker, the
 * three trees, the log documents and the Lifecycle panel. Commands reach the parts through it, and
 * the integration tests read its snapshots (what the Ranks view shows, what the panel received).
 */
import type * as vscode from 'vscode';
import { PHASE_TITLES } from '../../core/views/phases';
import { laneMarkers } from '../../core/views/timeline';
import type { LifecyclePanel, ReceivedEvent, Rendered } from './lifecyclePanel';
import type { LifecycleTree } from './lifecycleTree';
import type { LogDocuments } from './logDocuments';
import type { RanksTree } from './ranksTree';
import type { RunTracker } from './runTracker';
import type { K8sDocuments } from './snapshotCommands';
import type { SnapshotsTree } from './snapshotsTree';
import type { WorkersSource, WorkersTree } from './workersTree';

export const VIEWS_SERVICE = 'views';

export interface RankSnapshot {
  rank: string;
  phase?: string;
  markers: string[];
  lines: number;
  warnings: number;
  errors: number;
  lastLine?: string;
}

export class ViewsService {
  /** ms registerViews took during activation (the activation benchmark reports it) */
  registerMs = 0;

  constructor(
    readonly tracker: RunTracker,
    readonly workers: WorkersTree,
    readonly ranks: RanksTree,
    readonly lifecycle: LifecycleTree,
    readonly docs: LogDocuments,
    readonly panel: LifecyclePanel,
    readonly workerSource: WorkersSource,
    readonly snapshots: SnapshotsTree,
    readonly k8sDocs: K8sDocuments,
  ) {}

  /** What the Ranks view shows for the current run: its root nodes, from the tree provider itself. */
  async ranksSnapshot(): Promise<RankSnapshot[]> {
    const run = this.tracker.current;
    if (!run) return [];
    const roots = await this.ranks.getChildren();
    return roots.map((n) => {
      const r = run.rank(n.rank);
      const current = laneMarkers(run, n.rank).at(-1)?.phase;
      return {
        rank: n.rank,
        phase: current ? PHASE_TITLES[current] : undefined,
        markers: (r?.markers ?? []).map((m) => m.phase),
        lines: r?.lines ?? 0,
        warnings: r?.warnings ?? 0,
        errors: r?.errors ?? 0,
        lastLine: r?.lastLine,
      };
    });
  }

  /** The tree items of the Ranks view's root nodes (labels, descriptions, icons, context values). */
  async rankItems(): Promise<vscode.TreeItem[]> {
    return (await this.ranks.getChildren()).map((n) => this.ranks.getTreeItem(n));
  }

  panelReceived(): { events: ReceivedEvent[]; lines: Record<string, number>; rendered?: Rendered; posts: number } {
    return { events: [...this.panel.received], lines: Object.fromEntries(this.panel.receivedLines), rendered: this.panel.lastRendered, posts: this.panel.posts };
  }

  /** Time spent per kind of work (flood benchmark). */
  costs(): Record<string, { count: number; totalMs: number; maxMs: number }> {
    return this.tracker.costs.snapshot();
  }

  /** Refresh counts (the flood benchmark shows they stay bounded). */
  refreshCounts(): { ranksTree: number; documents: number; panelPosts: number } {
    return { ranksTree: this.ranks.refreshes, documents: this.docs.renders, panelPosts: this.panel.posts };
  }
}

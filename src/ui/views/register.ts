/**
 * Registers the views area: the run tracker first (so every other listener sees a run state that
 * already includes the event), then the trees, the log documents and the Lifecycle panel, and the
 * `views` service the commands and the tests use. Cheap: nothing is read or drawn until a view is
 * visible or a command runs.
 */
import type { Ctx } from '../context';
import { LifecyclePanel } from './lifecyclePanel';
import { LifecycleTree } from './lifecycleTree';
import { LogDocuments } from './logDocuments';
import { RanksTree } from './ranksTree';
import { RunTracker } from './runTracker';
import { K8sDocuments } from './snapshotCommands';
import type { ProfileSource } from './snapshotsCluster';
import { SnapshotsTree } from './snapshotsTree';
import { VIEWS_SERVICE, ViewsService } from './service';
import { WorkflowAdapter } from './workflowAdapter';
import { WorkersTree } from './workersTree';

export function registerViews(ctx: Ctx): void {
  const t0 = performance.now();
  const tracker = new RunTracker(ctx);
  const adapter = new WorkflowAdapter(ctx);
  tracker.externalLogs = (runId) => adapter.logFiles(runId);
  const workers = new WorkersTree(adapter);
  const ranks = new RanksTree(tracker);
  const lifecycle = new LifecycleTree(tracker);
  const docs = new LogDocuments(ctx, tracker);
  const panel = new LifecyclePanel(ctx, tracker, docs, () => adapter.history());
  // The workflow area registers after the views; its service is looked up when the view needs it.
  const snapshots = new SnapshotsTree(ctx, () => ctx.service<ProfileSource>('workflow'));
  const k8sDocs = new K8sDocuments();
  ctx.subscriptions.push(tracker, adapter, workers, ranks, lifecycle, docs, panel, snapshots, k8sDocs);
  adapter.onDidChange(() => snapshots.restartIfShown());
  const service = new ViewsService(tracker, workers, ranks, lifecycle, docs, panel, adapter, snapshots, k8sDocs);
  service.registerMs = performance.now() - t0;
  ctx.services.set(VIEWS_SERVICE, service);
}

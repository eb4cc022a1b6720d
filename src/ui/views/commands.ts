/** The views' commands (ids as contributed in package.json). */
import type { CommandSpec } from '../commands/table';
import { saveLogs, showMergedLog, showRankLog, toggleLogTimestamps, views } from './logCommands';
import { snapshotCommands } from './snapshotCommands';
import { addDemoWorker, editWorkerProfiles, refreshWorkers } from './workerCommands';

export const viewCommands: readonly CommandSpec[] = [
  { id: 'dynamoSnapshot.showRankLog', run: (ctx, arg) => showRankLog(ctx, arg) },
  { id: 'dynamoSnapshot.showMergedLog', run: (ctx, arg) => showMergedLog(ctx, arg) },
  { id: 'dynamoSnapshot.saveLogs', run: (ctx, folder, runId) => saveLogs(ctx, folder, runId) },
  { id: 'dynamoSnapshot.showLifecycle', run: (ctx) => views(ctx).panel.show() },
  { id: 'dynamoSnapshot.editWorker', run: () => editWorkerProfiles() },
  { id: 'dynamoSnapshot.addDemoWorker', run: (ctx) => addDemoWorker(ctx) },
  { id: 'dynamoSnapshot.refreshWorkers', run: (ctx) => refreshWorkers(ctx) },
  { id: 'dynamoSnapshot.toggleLogTimestamps', run: (ctx) => toggleLogTimestamps(ctx) },
  ...snapshotCommands((ctx) => ({ tree: views(ctx).snapshots, docs: views(ctx).k8sDocs })),
];

/**
 * Show Rank Log…, Show Merged Log, Save Logs… and Toggle Log Timestamps. Each accepts arguments
 * (from tree items, the panel and tests) and otherwise asks with a quick pick; runs in memory come
 * first, then older runs whose logs are on disk, so the previous run's logs stay reachable.
 */
import path from 'node:path';
import * as vscode from 'vscode';
import { compareRanks } from '../../core/views/ranks';
import { withPrompt } from '../compat';
import type { Ctx } from '../context';
import { copyRunLogs, ranksOnDisk } from './logFiles';
import { logUri } from './logUri';
import { VIEWS_SERVICE, type ViewsService } from './service';

export interface RankLogArgs {
  runId?: string;
  rank?: string;
  /** 1-based line number in the rank's whole log */
  line?: number;
  /** a line to find (a marker or evidence) */
  text?: string;
}

export function views(ctx: Ctx): ViewsService {
  const v = ctx.service<ViewsService>(VIEWS_SERVICE);
  if (!v) throw new Error('the views are not registered');
  return v;
}

function asArgs(a: unknown): RankLogArgs {
  if (typeof a === 'string') return { rank: a };
  if (a && typeof a === 'object') {
    const o = a as Record<string, unknown>;
    return {
      runId: typeof o.runId === 'string' ? o.runId : undefined,
      rank: typeof o.rank === 'string' ? o.rank : undefined,
      line: typeof o.line === 'number' ? o.line : undefined,
      text: typeof o.text === 'string' ? o.text : undefined,
    };
  }
  return {};
}

async function pickRun(v: ViewsService, title: string): Promise<string | undefined> {
  const inMemory = v.tracker.inMemory();
  const onDisk = (await v.tracker.runsOnDisk()).filter((d) => !inMemory.some((r) => r.runId === d.runId));
  const items: (vscode.QuickPickItem & { runId: string })[] = [
    ...inMemory.map((r, i) => ({
      runId: r.runId,
      label: r.runId,
      description: [r.worker, r.active ? 'running' : r.outcome, i === 0 ? 'current' : 'previous'].filter(Boolean).join(' · '),
      detail: `${new Date(r.startedAt).toLocaleString()} · ${r.ranks().length} ranks · ${r.logs.totalLines} lines`,
    })),
    ...onDisk.map((d) => ({ runId: d.runId, label: d.runId, description: 'logs on disk', detail: new Date(d.mtime).toLocaleString() })),
  ];
  if (items.length === 0) {
    void vscode.window.showInformationMessage('Dynamo Snapshot: no run has logs yet. Run the snapshot smoke test first.');
    return undefined;
  }
  if (items.length === 1) return items[0]!.runId;
  const options = withPrompt({ title, placeHolder: 'Which run?' }, 'Current run on top; runs of earlier sessions are read from disk.');
  return (await vscode.window.showQuickPick(items, options))?.runId;
}

async function ranksOf(v: ViewsService, runId: string): Promise<string[]> {
  const run = v.tracker.find(runId);
  if (run) return run.logs.ranks();
  return (await ranksOnDisk(v.tracker.files(runId).dir)).sort(compareRanks);
}

export async function showRankLog(ctx: Ctx, arg?: unknown): Promise<vscode.Uri | undefined> {
  const v = views(ctx);
  const a = asArgs(arg);
  const runId = a.runId ?? (a.rank ? v.tracker.current?.runId : undefined) ?? (await pickRun(v, 'Show Rank Log'));
  if (!runId) return undefined;
  let rank = a.rank;
  if (!rank) {
    const run = v.tracker.find(runId);
    const items = (await ranksOf(v, runId)).map((r) => {
      const s = run?.rank(r);
      return { label: r, description: s ? `${s.phase ?? ''} · ${s.lines} lines` : undefined, detail: s?.lastLine };
    });
    if (items.length === 0) {
      void vscode.window.showInformationMessage(`Dynamo Snapshot: run ${runId} has no rank logs.`);
      return undefined;
    }
    const options = withPrompt({ title: `Show Rank Log — ${runId}`, placeHolder: 'Which rank?' }, 'One log per data-parallel rank, its latest line under it.');
    rank = (await vscode.window.showQuickPick(items, options))?.label;
    if (!rank) return undefined;
  }
  const editor = await v.docs.show({ runId, rank }, a.line !== undefined || a.text !== undefined ? { no: a.line, text: a.text } : undefined);
  return editor.document.uri;
}

export async function showMergedLog(ctx: Ctx, arg?: unknown): Promise<vscode.Uri | undefined> {
  const v = views(ctx);
  const runId = asArgs(arg).runId ?? (await pickRun(v, 'Show Merged Log'));
  if (!runId) return undefined;
  const editor = await v.docs.show({ runId, merged: true });
  return editor.document.uri;
}

/**
 * Writes every rank's whole log and merged.log of a run into `<folder>/<runId>/`. The folder comes
 * from the first argument (a path or Uri: tests, scripts) or a folder picker.
 */
export async function saveLogs(ctx: Ctx, folderArg?: unknown, runArg?: unknown): Promise<string[] | undefined> {
  const v = views(ctx);
  const runId = (typeof runArg === 'string' ? runArg : undefined) ?? (await pickRun(v, 'Save Logs'));
  if (!runId) return undefined;
  let folder = folderArg instanceof vscode.Uri ? folderArg.fsPath : typeof folderArg === 'string' ? folderArg : undefined;
  if (!folder) {
    const picked = await vscode.window.showOpenDialog({ canSelectFolders: true, canSelectFiles: false, canSelectMany: false, openLabel: 'Save Logs Here', title: `Save the logs of run ${runId}` });
    folder = picked?.[0]?.fsPath;
    if (!folder) return undefined;
  }
  await v.tracker.drain(runId);
  const dest = path.join(folder, runId.replace(/[^A-Za-z0-9_.-]/g, '_'));
  const written = await copyRunLogs(v.tracker.files(runId), await ranksOf(v, runId), dest);
  if (written.length === 0) throw new Error(`run ${runId} has no log files on disk`);
  ctx.log.info(`saved ${written.length} log files of run ${runId} to ${dest}`);
  void vscode.window.showInformationMessage(`Dynamo Snapshot: saved ${written.length} log files to ${dest}`, 'Reveal').then((c) => {
    if (c) void vscode.commands.executeCommand('revealFileInOS', vscode.Uri.file(dest));
  });
  return written;
}

export async function toggleLogTimestamps(ctx: Ctx): Promise<boolean> {
  const next = !ctx.config.settings.general['logs.showTimestamps'];
  await vscode.workspace.getConfiguration('dynamoSnapshot').update('logs.showTimestamps', next, vscode.ConfigurationTarget.Global);
  return next;
}

export { logUri };

/**
 * Open Run Report and Compare Runs: pick records (newest first) unless run ids are given, then show
 * the Markdown rendering. Unreadable records are listed in the output, never fatal.
 */
import * as vscode from 'vscode';
import { renderComparison } from '../../core/workflow/compare';
import type { RunRecord } from '../../core/workflow/records';
import { renderReport } from '../../core/workflow/report';
import type { Ctx } from '../context';
import { NotNowError, WORKFLOW_SERVICE, type WorkflowController } from './service';
import { workflowUi } from './ui';

type Item = vscode.QuickPickItem & { record: RunRecord; file: string };

async function records(ctx: Ctx): Promise<Item[]> {
  const c = ctx.service<WorkflowController>(WORKFLOW_SERVICE)!;
  const { records: list, problems } = await c.listRecords();
  for (const p of problems) ctx.log.warn(`run record ${p.file} skipped: ${p.problem}`);
  return list.map(({ record: r, file }) => ({
    label: `${r.outcome === 'passed' ? '$(pass)' : r.outcome === 'failed' ? '$(error)' : '$(circle-slash)'} ${r.worker}`,
    description: `${new Date(r.startedAt).toLocaleString()} · ${r.outcome}${r.metrics.restoreMs !== undefined ? ` · restore ${Math.round(r.metrics.restoreMs)} ms` : ''}`,
    detail: r.runId,
    record: r,
    file,
  }));
}

function byId(items: Item[], arg: unknown): Item | undefined {
  const id = typeof arg === 'string' ? arg : typeof arg === 'object' && arg !== null ? (arg as { runId?: string }).runId : undefined;
  return id ? items.find((i) => i.record.runId === id || i.file === id) : undefined;
}

/** Shows a run's report; `arg`: a run id (or record path) — else the user picks. Returns the document URI. */
export async function openRunReport(ctx: Ctx, arg?: unknown): Promise<string | undefined> {
  const items = await records(ctx);
  if (items.length === 0) throw new NotNowError('no runs recorded yet: run "Dynamo Snapshot: Run Snapshot Smoke Test" first');
  let item = byId(items, arg);
  if (arg !== undefined && !item) throw new NotNowError(`no run record ${JSON.stringify(arg)}`);
  item ??= await vscode.window.showQuickPick(items, { title: 'Dynamo Snapshot: Open Run Report', matchOnDetail: true });
  if (!item) return undefined;
  const uri = await workflowUi(ctx)!.reports.show(`run-${item.record.runId}`, renderReport(item.record, item.file));
  return uri.toString();
}

/** Shows two runs side by side; `a`, `b`: run ids — else the user picks two. */
export async function compareRuns(ctx: Ctx, a?: unknown, b?: unknown): Promise<string | undefined> {
  const items = await records(ctx);
  if (items.length < 2) throw new NotNowError(`comparing needs two recorded runs; there ${items.length === 1 ? 'is one' : 'are none'}`);
  let first = byId(items, a);
  let second = byId(items, b);
  if ((a !== undefined && !first) || (b !== undefined && !second)) throw new NotNowError('no run record with that id');
  first ??= await vscode.window.showQuickPick(items, { title: 'Compare Runs: first run (A)', matchOnDetail: true });
  if (!first) return undefined;
  second ??= await vscode.window.showQuickPick(items.filter((i) => i !== first), { title: 'Compare Runs: second run (B)', matchOnDetail: true });
  if (!second) return undefined;
  const uri = await workflowUi(ctx)!.reports.show(`compare-${first.record.runId}-${second.record.runId}`, renderComparison(first.record, second.record));
  return uri.toString();
}

/**
 * What the views need from the workflow area, in one place: the worker profiles with their
 * connection state and hello, selecting a worker, where a run's log router writes, and the run
 * records for the history chart. The workflow registers its service during activation, after or
 * before the views, so it is looked up on each use, never captured at registration.
 */
import path from 'node:path';
import * as vscode from 'vscode';
import { allProfiles } from '../../core/settings/builtinProfiles';
import type { RunSummary } from '../../core/views/timeline';
import { listRecords } from '../../core/workflow/records';
import type { Ctx } from '../context';
import { WORKFLOW_SERVICE, type WorkflowService } from '../workflow/service';
import { filesIn, type RunLogFiles } from './logFiles';
import type { WorkerInfo, WorkersSource } from './workersTree';

export class WorkflowAdapter implements WorkersSource, vscode.Disposable {
  private readonly emitter = new vscode.EventEmitter<void>();
  readonly onDidChange = this.emitter.event;
  private readonly disposables: vscode.Disposable[] = [];
  private serviceListener?: vscode.Disposable;

  constructor(private readonly ctx: Ctx) {
    this.disposables.push(
      this.emitter,
      ctx.config.onDidChange(() => this.emitter.fire()),
      // Connecting is a workflow step: its changes change the Workers view.
      ctx.runEvents.event((e) => {
        if (e.type === 'run-started' || e.type === 'run-ended' || (e.type === 'step' && e.step.name === 'connect')) {
          this.hookService();
          this.emitter.fire();
        }
      }),
    );
  }

  private service(): WorkflowService | undefined {
    return this.ctx.service<WorkflowService>(WORKFLOW_SERVICE);
  }

  private hookService(): void {
    if (this.serviceListener) return;
    const s = this.service();
    if (s) this.serviceListener = s.onDidChange(() => this.emitter.fire());
  }

  list(): WorkerInfo[] {
    this.hookService();
    const s = this.service();
    const selected = s ? s.selectedWorker() : this.ctx.config.settings.general.defaultWorker;
    const user = new Set(this.ctx.config.settings.workers.map((p) => p.name));
    return allProfiles(this.ctx.config.settings.workers, this.ctx.extensionRoot).map((p) => {
      const c = s?.connectionState(p.name);
      return {
        name: p.name,
        description: p.description,
        transport: p.transport.kind === 'ssh' ? `ssh ${p.transport.host}` : p.transport.kind,
        backend: p.backend,
        builtin: !user.has(p.name),
        selected: p.name === selected,
        state: c?.state ?? 'disconnected',
        hello: c?.hello,
        error: c?.error,
        source: c?.source,
      };
    });
  }

  async select(name: string): Promise<void> {
    await this.service()?.selectWorker(name);
    this.emitter.fire();
  }

  /** The log router's folder when `runId` is the workflow's active run. */
  logFiles(runId: string): RunLogFiles | undefined {
    const run = this.service()?.activeRun();
    return run?.runId === runId && run.router ? filesIn(run.router.dir) : undefined;
  }

  /** Past runs from the run records (newest first), for the history chart. */
  async history(): Promise<RunSummary[]> {
    const s = this.service();
    const { records } = s ? await s.listRecords() : await listRecords(path.join(this.ctx.storageDir, 'runs'));
    return records.map(({ record: r }) => ({ runId: r.runId, startedAt: r.startedAt, outcome: r.outcome, steps: r.steps, restoreMs: r.metrics.restoreMs }));
  }

  dispose(): void {
    this.serviceListener?.dispose();
    for (const d of this.disposables.splice(0)) d.dispose();
  }
}

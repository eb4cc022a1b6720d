/**
 * The workflow's palette commands. Each takes an optional worker (a name or a Workers-view node) so
 * the views can call them, never prompts when given what it needs (tests run them headless), and says
 * why when it cannot run now (no worker, a run going, nothing captured yet).
 */
import * as vscode from 'vscode';
import type { RunRecord } from '../../core/workflow/records';
import type { StepName } from '../../core/workflow/types';
import type { CommandSpec } from '../commands/table';
import { withPrompt } from '../compat';
import type { Ctx } from '../context';
import { showRunProgress } from './progress';
import { compareRuns, openRunReport } from './reports';
import { NotNowError, WORKFLOW_SERVICE, type WorkflowController } from './service';
import { workflowUi } from './ui';

function controller(ctx: Ctx): WorkflowController {
  const c = ctx.service<WorkflowController>(WORKFLOW_SERVICE);
  if (!c) throw new Error('the workflow area is not registered');
  return c;
}

/** Runs `fn`; a NotNowError becomes a warning that says why (and `undefined`), anything else propagates. */
async function sayWhy<T>(fn: () => Promise<T>): Promise<T | undefined> {
  try {
    return await fn();
  } catch (e) {
    if (!(e instanceof NotNowError)) throw e;
    void vscode.window.showWarningMessage(`Dynamo Snapshot: ${e.message}`);
    return undefined;
  }
}

async function runSteps(ctx: Ctx, arg: unknown, steps: StepName[] | undefined, title: string, keepRunning: boolean, check?: (stage: string, worker: string) => void, reattach = true): Promise<RunRecord | undefined> {
  return sayWhy(async () => {
    const c = controller(ctx);
    const profile = c.resolve(arg);
    if (c.activeRun()) throw new NotNowError(`a run is already going (${c.activeRun()!.title} on ${c.activeRun()!.worker}); wait for it or cancel it`);
    // A source a previous window left running is picked up again before the stage is judged.
    if (reattach) await c.reattachSaved(profile);
    check?.(c.stageOf(profile.name), profile.name);
    const result = await showRunProgress(ctx, `${title} on ${profile.name}`, () => c.run(profile, steps, title, keepRunning), () => c.cancel());
    const r = result.record;
    const failed = r.steps.find((s) => s.state === 'failed');
    const text = r.outcome === 'passed'
      ? `Dynamo Snapshot: ${title} on ${r.worker} passed${r.metrics.restoreMs !== undefined ? ` (restore ${Math.round(r.metrics.restoreMs)} ms)` : ''}.`
      : r.outcome === 'cancelled' ? `Dynamo Snapshot: ${title} on ${r.worker} was cancelled; what it started was stopped.` : `Dynamo Snapshot: ${title} on ${r.worker} failed at ${failed?.name ?? 'a step'}: ${failed?.verdict ?? ''}`;
    const show = r.outcome === 'failed' ? vscode.window.showErrorMessage : vscode.window.showInformationMessage;
    void show(text, 'Open Report', 'Show Output').then((choice) => {
      if (choice === 'Open Report') void openRunReport(ctx, r.runId);
      if (choice === 'Show Output') ctx.log.show(true);
    });
    return r;
  });
}

async function selectWorker(ctx: Ctx, arg?: unknown): Promise<string | undefined> {
  return sayWhy(async () => {
    const c = controller(ctx);
    let name = typeof arg === 'string' ? arg : typeof arg === 'object' && arg !== null ? (arg as { name?: string }).name : undefined;
    if (!name) {
      const selected = c.selectedWorker();
      const pick = await vscode.window.showQuickPick(
        c.profiles().map((p) => ({
          label: p.name,
          description: `${p.transport.kind === 'ssh' ? `ssh ${p.transport.host}` : p.transport.kind} · ${p.backend} · ${p.captureMode}${p.name === selected ? ' · selected' : ''}`,
          detail: p.description,
        })),
        withPrompt({ title: 'Dynamo Snapshot: Select Worker', placeHolder: 'Which worker?' }, 'Connect, capture, restore and smoke tests use it (setting dynamoSnapshot.workers).'),
      );
      name = pick?.label;
    }
    if (!name) return undefined;
    await c.selectWorker(name);
    return name;
  });
}

export const workflowCommands: readonly CommandSpec[] = [
  { id: 'dynamoSnapshot.selectWorker', run: (ctx, arg) => selectWorker(ctx, arg) },
  {
    id: 'dynamoSnapshot.connect',
    needsTrust: true,
    run: (ctx, arg) =>
      sayWhy(async () => {
        const c = controller(ctx);
        const p = c.resolve(arg);
        if (c.activeRun()?.worker === p.name) throw new NotNowError(`a run on ${p.name} is going and already connected`);
        const reattached = await c.reattachSaved(p);
        const hello = await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: `Dynamo Snapshot: connecting to ${p.name}`, cancellable: true }, (_progress, token) => {
          const ctl = new AbortController();
          token.onCancellationRequested(() => ctl.abort());
          return c.connect(p, AbortSignal.any([ctl.signal, AbortSignal.timeout(p.timeouts.connectSeconds * 1000)]));
        });
        void vscode.window.showInformationMessage(`Dynamo Snapshot: connected to ${p.name} (${hello.hostname}, ${hello.gpus.length} GPU${hello.gpus.length === 1 ? '' : 's'})${c.sourceState(p.name)?.endsWith('(reattached)') ? `; ${c.sourceState(p.name)}` : reattached ? `; ${reattached}` : ''}.`);
        return hello;
      }),
  },
  {
    id: 'dynamoSnapshot.disconnect',
    run: (ctx, arg) =>
      sayWhy(async () => {
        const c = controller(ctx);
        const p = c.resolve(arg);
        const had = await c.disconnect(p.name);
        void vscode.window.showInformationMessage(had ? `Dynamo Snapshot: disconnected from ${p.name}; what it had started was stopped.` : `Dynamo Snapshot: ${p.name} was not connected.`);
        return had;
      }),
  },
  {
    id: 'dynamoSnapshot.startSource',
    needsTrust: true,
    run: (ctx, arg) =>
      runSteps(ctx, arg, ['connect', 'preflight', 'start', 'warmup', 'ready'], 'Start Source in Snapshot Mode', true, (stage, worker) => {
        if (stage !== 'idle') throw new NotNowError(`a source is already running on ${worker} (started earlier); run Warm-up and Capture, or Disconnect to stop it`);
      }),
  },
  { id: 'dynamoSnapshot.warmupAndCapture', needsTrust: true, run: (ctx, arg) => runSteps(ctx, arg, ['warmup', 'ready', 'capture', 'sourceExit'], 'Warm-up and Capture', true) },
  {
    id: 'dynamoSnapshot.restore',
    needsTrust: true,
    run: (ctx, arg) =>
      runSteps(ctx, arg, ['restore', 'resume'], 'Restore', true, (stage, worker) => {
        if (stage === 'restored') throw new NotNowError(`${worker} is already restored from its last capture: run "Run Warm-up and Capture" for a new one`);
        if (stage !== 'exited' && stage !== 'captured') throw new NotNowError(`nothing has been captured on ${worker} yet: run "Run Warm-up and Capture" first`);
      }),
  },
  { id: 'dynamoSnapshot.runSmokeTest', needsTrust: true, run: (ctx, arg) => runSteps(ctx, arg, undefined, 'Snapshot Smoke Test', false) },
  {
    id: 'dynamoSnapshot.cancelRun',
    run: (ctx) => {
      const c = controller(ctx);
      const run = c.activeRun();
      if (!run) {
        void vscode.window.showInformationMessage('Dynamo Snapshot: no run is going.');
        return false;
      }
      c.cancel();
      return true;
    },
  },
  { id: 'dynamoSnapshot.openRunReport', run: (ctx, arg) => sayWhy(() => openRunReport(ctx, arg)) },
  { id: 'dynamoSnapshot.compareRuns', run: (ctx, a, b) => sayWhy(() => compareRuns(ctx, a, b)) },
  {
    id: 'dynamoSnapshot.showOutput',
    run: (ctx) => {
      ctx.log.show(true);
      return workflowUi(ctx)?.statusBar.text;
    },
  },
];

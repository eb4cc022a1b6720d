/**
 * The workflow area as a service (`ctx.services.get('workflow')`): the selected worker, one session
 * per worker (connection, source, state carried between palette commands), the active run with its
 * log router, and where run records live. Views, the status bar, the commands and the integration
 * tests all go through it; it fires every RunEvent on `ctx.runEvents`.
 */
import os from 'node:os';
import path from 'node:path';
import * as vscode from 'vscode';
import { createLogRouter, type LogRouter } from '../../core/logs/router';
import type { HelloEvent } from '../../core/protocol/agentEvents';
import { allProfiles } from '../../core/settings/builtinProfiles';
import { WorkerProfile } from '../../core/settings/workerProfile';
import type { ConnectionEnvironment } from '../../core/worker/types';
import { workspaceExitCauseFinder } from '../../core/workflow/exitCause';
import { observeHello } from '../../core/workflow/kube/steps';
import { reattachSource, saveSource, type SavedSource } from '../../core/workflow/reattach';
import { listRecords, type RecordList } from '../../core/workflow/records';
import { runWorkflow, newRunId, type RunResult } from '../../core/workflow/runner';
import { WorkerSession } from '../../core/workflow/session';
import type { StepName } from '../../core/workflow/types';
import { kubeSourceFor } from '../../cli/kubeSource';
import { createConnection } from '../../transport/index';
import type { Ctx } from '../context';
import { cliLinter } from './cliLinter';

export const WORKFLOW_SERVICE = 'workflow';

/** workspaceState key: the sources kept running between commands, by worker (core/workflow/reattach.ts). */
export const SAVED_SOURCES_KEY = 'dynamoSnapshot.savedSources';

export type ConnectionState = 'connected' | 'connecting' | 'disconnected' | 'failed';

export interface ActiveRun {
  runId: string;
  worker: string;
  title: string;
  /** The step running now (status bar, progress). */
  step?: StepName;
  router?: LogRouter;
  cancel(): void;
  done: Promise<RunResult>;
}

/** What other areas and the tests may rely on. */
export interface WorkflowService {
  selectedWorker(): string | undefined;
  selectWorker(name: string): Promise<void>;
  profiles(): WorkerProfile[];
  connectionState(name: string): { state: ConnectionState; hello?: HelloEvent; error?: string; source?: string } | undefined;
  activeRun(): ActiveRun | undefined;
  readonly recordsDir: string;
  listRecords(): Promise<RecordList>;
  readonly onDidChange: vscode.Event<void>;
}

/** Why a command cannot run now, for the user (never a silent no-op). */
export class NotNowError extends Error {}

interface WorkerEntry {
  session: WorkerSession;
  state: ConnectionState;
  error?: string;
}

export class WorkflowController implements WorkflowService, vscode.Disposable {
  private selected: string | undefined;
  private readonly workers = new Map<string, WorkerEntry>();
  private active: ActiveRun | undefined;
  private readonly emitter = new vscode.EventEmitter<void>();
  readonly onDidChange = this.emitter.event;

  constructor(private readonly ctx: Ctx) {
    this.selected = ctx.extension.workspaceState.get<string>('dynamoSnapshot.selectedWorker');
  }

  get recordsDir(): string {
    return path.join(this.ctx.storageDir, 'runs');
  }

  profiles(): WorkerProfile[] {
    return allProfiles(this.ctx.config.settings.workers, this.ctx.extensionRoot);
  }

  profile(name: string): WorkerProfile | undefined {
    return this.profiles().find((p) => p.name === name);
  }

  selectedWorker(): string | undefined {
    const names = this.profiles().map((p) => p.name);
    if (this.selected && names.includes(this.selected)) return this.selected;
    const dflt = this.ctx.config.settings.general.defaultWorker;
    return names.includes(dflt) ? dflt : undefined;
  }

  async selectWorker(name: string): Promise<void> {
    if (!this.profile(name)) throw new NotNowError(`there is no worker profile named "${name}"`);
    this.selected = name;
    await this.ctx.extension.workspaceState.update('dynamoSnapshot.selectedWorker', name);
    this.emitter.fire();
  }

  connectionState(name: string): { state: ConnectionState; hello?: HelloEvent; error?: string; source?: string } | undefined {
    const w = this.workers.get(name);
    return w ? { state: w.state, hello: w.session.hello, error: w.error, source: this.sourceState(name) } : undefined;
  }

  /** What the worker's kept source is doing, for the views: "source running (reattached)", "captured" … */
  sourceState(name: string): string | undefined {
    const s = this.workers.get(name)?.session;
    if (!s?.handle || s.stage === 'idle') return undefined;
    const what = s.stage === 'started' ? 'source running' : s.stage === 'captured' ? 'source captured' : s.stage === 'exited' ? 'source exited after capture' : 'restored worker running';
    return s.reattached ? `${what} (reattached)` : what;
  }

  private savedSources(): Record<string, SavedSource> {
    return { ...(this.ctx.extension.workspaceState.get<Record<string, SavedSource>>(SAVED_SOURCES_KEY) ?? {}) };
  }

  /** Saves (or forgets) what the worker keeps running, so the next window can reattach to it. */
  private async persist(session: WorkerSession): Promise<void> {
    const all = this.savedSources();
    const saved = saveSource(session);
    if (saved) all[session.profile.name] = saved;
    else if (!(session.profile.name in all)) return;
    else delete all[session.profile.name];
    await this.ctx.extension.workspaceState.update(SAVED_SOURCES_KEY, all);
  }

  /**
   * Picks up the source a previous window left running for this worker (Connect, Warm-up and
   * Capture, Restore call it before anything else). Returns what happened, for the log.
   */
  async reattachSaved(profile: WorkerProfile, signal: AbortSignal = AbortSignal.timeout(profile.timeouts.connectSeconds * 1000)): Promise<string | undefined> {
    const saved = this.savedSources()[profile.name];
    if (!saved) return undefined;
    const w = this.entry(profile);
    if (w.session.handle) return undefined;
    let message: string;
    try {
      const r = await reattachSource(w.session, saved, signal);
      if (r.kind === 'reattached') {
        message = `${profile.name}: reattached to the source started before the reload (run ${r.handle.runId}, process group ${r.handle.pgid}, ${w.session.stage}); following its logs from the saved offsets`;
        this.ctx.log.info(message);
      } else {
        message = `${profile.name}: ${r.why}`;
        this.ctx.log.warn(message);
        const all = this.savedSources();
        delete all[profile.name];
        await this.ctx.extension.workspaceState.update(SAVED_SOURCES_KEY, all);
      }
    } catch (e) {
      // The worker cannot be asked now (ssh down): keep what was saved for the next try.
      message = `${profile.name}: could not look for the source started before the reload: ${e instanceof Error ? e.message : String(e)}`;
      this.ctx.log.warn(message);
    }
    this.emitter.fire();
    return message;
  }

  activeRun(): ActiveRun | undefined {
    return this.active;
  }

  /** How far the worker's session has come (idle, started, captured, exited, restored). */
  stageOf(name: string): string {
    return this.workers.get(name)?.session.stage ?? 'idle';
  }

  listRecords(): Promise<RecordList> {
    return listRecords(this.recordsDir);
  }

  private environment(): ConnectionEnvironment {
    const g = this.ctx.config.settings.general;
    return {
      sshPath: g['ssh.path'],
      sshConfigFile: g['ssh.configFile'] || undefined,
      kubectlPath: g['kubectl.path'],
      kubeconfig: g['kubectl.kubeconfig'] || undefined,
      extensionRoot: this.ctx.extensionRoot,
      // Short on purpose: ssh ControlPath sockets must stay under ~104 bytes.
      scratchDir: path.join(os.tmpdir(), `dsw-${os.userInfo().uid}`),
    };
  }

  /** The session of a worker, created on first use; a changed profile gets a fresh one. */
  private entry(profile: WorkerProfile): WorkerEntry {
    let w = this.workers.get(profile.name);
    if (w && JSON.stringify(w.session.profile) !== JSON.stringify(profile) && w.session.stage === 'idle') {
      void w.session.dispose().catch(() => undefined);
      w = undefined;
    }
    if (!w) {
      const env = this.environment();
      const session = new WorkerSession(profile, createConnection(profile, env));
      session.kube = kubeSourceFor(profile, env);
      w = { session, state: 'disconnected' };
      this.workers.set(profile.name, w);
    }
    return w;
  }

  /** Resolves a command argument (name, Workers tree node, nothing) to a profile, or says why not. */
  resolve(arg: unknown): WorkerProfile {
    const name = typeof arg === 'string' ? arg : typeof arg === 'object' && arg !== null && typeof (arg as { name?: unknown }).name === 'string' ? (arg as { name: string }).name : this.selectedWorker();
    if (!name) throw new NotNowError('no worker is selected: run "Dynamo Snapshot: Select Worker…" first');
    const p = this.profile(name);
    if (!p) throw new NotNowError(`there is no worker profile named "${name}" (check dynamoSnapshot.workers)`);
    return p;
  }

  async connect(profile: WorkerProfile, signal: AbortSignal = new AbortController().signal): Promise<HelloEvent> {
    const w = this.entry(profile);
    w.state = 'connecting';
    w.error = undefined;
    this.emitter.fire();
    try {
      // Observe mode never runs the agent in the pod: connecting is reading the pods through kubectl.
      const hello = w.session.kube ? await observeHello(w.session.kube) : await w.session.connection.hello(signal);
      w.session.hello = hello;
      w.state = 'connected';
      return hello;
    } catch (e) {
      w.state = 'failed';
      w.error = e instanceof Error ? e.message : String(e);
      throw e;
    } finally {
      this.emitter.fire();
    }
  }

  /** Stops what the session started and closes the connection. */
  async disconnect(name: string): Promise<boolean> {
    if (this.active?.worker === name) throw new NotNowError(`a run on ${name} is going; cancel it first ("Dynamo Snapshot: Cancel Run")`);
    const p = this.profile(name);
    // A source left by an earlier window is stopped too: reattach first so that dispose reaches it.
    if (p && !this.workers.get(name)?.session.handle) await this.reattachSaved(p).catch(() => undefined);
    const w = this.workers.get(name);
    if (!w) return false;
    this.workers.delete(name);
    await w.session.dispose();
    await this.persist(w.session);
    this.emitter.fire();
    return true;
  }

  /**
   * Runs steps on a worker; the profile may also come from a test or the CLI harness (validated).
   * Refuses, with the reason, while another run is going.
   */
  async run(profileOrName: WorkerProfile | string, steps: readonly StepName[] | undefined, title: string, keepRunning: boolean): Promise<RunResult> {
    if (this.active) throw new NotNowError(`a run is already going (${this.active.title} on ${this.active.worker}); wait for it or cancel it`);
    const profile = typeof profileOrName === 'string' ? this.resolve(profileOrName) : WorkerProfile.parse(profileOrName);
    const w = this.entry(profile);
    const runId = newRunId(profile.name);
    const ctl = new AbortController();
    const router = createLogRouter({
      dir: path.join(this.ctx.storageDir, 'logs', runId),
      backend: profile.backend,
      memoryLinesPerRank: this.ctx.config.settings.general['logs.memoryLinesPerRank'],
      merged: true,
    });
    const unlisten = w.session.listen({
      onAgentEvent: (e) => e.type === 'log' && router.push(e.file, e.bytes ?? e.data),
      onProblem: (p) => this.ctx.log.warn(`${profile.name}: worker output skipped (${p.kind}): ${p.detail}`),
    });
    const folder = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
    const active: ActiveRun = { runId, worker: profile.name, title, router, cancel: () => ctl.abort(), done: undefined as unknown as Promise<RunResult> };
    this.active = active;
    void vscode.commands.executeCommand('setContext', 'dynamoSnapshot.runActive', true);
    if (!w.session.hello) w.state = 'connecting';
    this.emitter.fire();
    active.done = (async () => {
      try {
        const result = await runWorkflow(w.session, {
          runId,
          steps,
          signal: ctl.signal,
          keepRunning,
          emit: (e) => {
            if (e.type === 'step' && e.step.state === 'running') active.step = e.step.name;
            if (e.type === 'step' && e.step.name === 'connect' && e.step.state !== 'running') {
              w.state = e.step.state === 'passed' ? 'connected' : e.step.state === 'failed' ? 'failed' : w.state;
              w.error = e.step.state === 'failed' ? e.step.verdict : undefined;
            }
            this.ctx.runEvents.fire(e);
            if (e.type === 'step') this.emitter.fire();
          },
          findExitCause: folder ? workspaceExitCauseFinder(folder, cliLinter(this.ctx.extensionRoot)) : undefined,
          recordsDir: this.recordsDir,
          keepRecords: this.ctx.config.settings.general['runs.keep'],
          localLogDir: router.dir,
        });
        if (w.session.hello && w.state !== 'failed') w.state = 'connected';
        await this.persist(w.session).catch((e: unknown) => this.ctx.log.warn(`could not save the source for reattaching: ${e instanceof Error ? e.message : String(e)}`));
        if (result.saveError) this.ctx.log.warn(result.saveError);
        this.ctx.log.info(`run ${runId} on ${profile.name}: ${result.record.outcome}${result.file ? ` (record ${result.file})` : ''}`);
        return result;
      } finally {
        unlisten();
        router.dispose();
        this.active = undefined;
        void vscode.commands.executeCommand('setContext', 'dynamoSnapshot.runActive', false);
        this.emitter.fire();
      }
    })();
    return active.done;
  }

  cancel(): boolean {
    if (!this.active) return false;
    this.active.cancel();
    return true;
  }

  /**
   * Window closing or reloading: a run in progress is cancelled (it stops what it started); a source
   * kept between commands (Start Source, Warm-up and Capture, Restore) keeps running detached and is
   * saved for the next window to reattach; only attached jobs (the log follow) end.
   */
  async shutdown(): Promise<void> {
    this.active?.cancel();
    await this.active?.done.catch(() => undefined);
    await Promise.allSettled(
      [...this.workers.values()].map(async (w) => {
        if (saveSource(w.session)) {
          await w.session.detach();
          await this.persist(w.session);
        } else await w.session.dispose();
      }),
    );
    this.workers.clear();
  }

  dispose(): void {
    this.emitter.dispose();
  }
}

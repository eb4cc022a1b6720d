/**
 * Listens to the workflow's `RunEvent`s and keeps, per run, the views' state (core/views/runState)
 * and the whole log on disk (core/views/logSpill). The latest run and a few before it stay in
 * memory (bounded tails); older runs are reached through their log folders on disk.
 */
import fs from 'node:fs';
import path from 'node:path';
import * as vscode from 'vscode';
import type { RunEvent } from '../../core/workflow/types';
import { LogSpill } from '../../core/views/logSpill';
import { Costs } from '../../core/views/costs';
import { RunState, type Change } from '../../core/views/runState';
import type { Ctx } from '../context';
import { filesIn, type RunLogFiles } from './logFiles';

export interface RunChangeEvent {
  state: RunState;
  change: Change;
}

/** Runs kept in memory besides the latest one (their tails; the whole logs are on disk). */
const KEEP_IN_MEMORY = 3;

export class RunTracker implements vscode.Disposable {
  private readonly emitter = new vscode.EventEmitter<RunChangeEvent>();
  readonly onDidChange = this.emitter.event;
  /** newest first */
  private readonly runs: RunState[] = [];
  private readonly spills = new Map<string, LogSpill>();
  /** Runs whose whole logs the workflow's log router writes (so the views need not write them again). */
  private readonly external = new Map<string, RunLogFiles | null>();
  /** Set by register.ts: finds the log router's files of a run, when the workflow has one. */
  externalLogs: (runId: string) => RunLogFiles | undefined = () => undefined;
  private readonly listener: vscode.Disposable;
  /** Time the views spend, by kind (shared with the trees, documents and panel). */
  readonly costs = new Costs();

  constructor(private readonly ctx: Ctx) {
    this.listener = ctx.runEvents.event((e) => this.costs.time('apply', () => this.onEvent(e)));
    ctx.onDeactivate.push(() => this.closeAll());
  }

  /** The run the views show: the newest one, running or finished. */
  get current(): RunState | undefined {
    return this.runs[0];
  }

  inMemory(): readonly RunState[] {
    return this.runs;
  }

  find(runId: string): RunState | undefined {
    return this.runs.find((r) => r.runId === runId);
  }

  /** Where the run's whole logs are (one file per rank + merged.log). */
  logDir(runId: string): string {
    return path.join(this.ctx.storageDir, 'logs', runId.replace(/[^A-Za-z0-9_.-]/g, '_'));
  }

  /** The files holding the run's whole logs: the router's, else the views' own spill. */
  files(runId: string): RunLogFiles {
    return this.externalFor(runId) ?? filesIn(this.logDir(runId));
  }

  /** Waits until every line received so far is in the files on disk. */
  async drain(runId: string): Promise<void> {
    await this.spills.get(runId)?.drain();
  }

  private externalFor(runId: string): RunLogFiles | undefined {
    let f = this.external.get(runId);
    if (f === undefined) {
      f = this.externalLogs(runId) ?? null;
      // Only a found router is remembered; until then every batch asks again (cheap: a map lookup).
      if (f) this.external.set(runId, f);
    }
    return f ?? undefined;
  }

  private spill(runId: string): LogSpill {
    let s = this.spills.get(runId);
    if (!s) {
      s = new LogSpill(this.logDir(runId), (e) => this.ctx.log.warn(`could not write the logs of run ${runId} to disk: ${e.message}`));
      this.spills.set(runId, s);
    }
    return s;
  }

  /** Run ids with logs on disk, newest first (older runs than those in memory, e.g. after a reload). */
  async runsOnDisk(): Promise<{ runId: string; mtime: number }[]> {
    const root = path.join(this.ctx.storageDir, 'logs');
    let names: string[];
    try {
      names = await fs.promises.readdir(root);
    } catch {
      return [];
    }
    const out = await Promise.all(
      names.map(async (n) => {
        try {
          const st = await fs.promises.stat(path.join(root, n));
          return st.isDirectory() ? { runId: n, mtime: st.mtimeMs } : undefined;
        } catch {
          return undefined;
        }
      }),
    );
    return out.filter((x): x is { runId: string; mtime: number } => x !== undefined).sort((a, b) => b.mtime - a.mtime);
  }

  private memoryLines(): number {
    return this.ctx.config.settings.general['logs.memoryLinesPerRank'];
  }

  private onEvent(e: RunEvent): void {
    let state = this.find(e.runId);
    if (!state) {
      // Views registered after the run began still show it from the first event they see.
      state = e.type === 'run-started' ? RunState.fromStart(e, this.memoryLines()) : new RunState(e.runId, '', Date.now(), [], this.memoryLines());
      this.runs.unshift(state);
      for (const old of this.runs.splice(KEEP_IN_MEMORY + 1)) void this.closeSpill(old.runId);
    }
    const change = state.apply(e);
    if (!change) return;
    if (change.appended && !this.externalFor(e.runId)) {
      this.spill(e.runId).append(change.appended.rank, change.appended.lines.map((l) => l.raw));
    }
    if (e.type === 'run-ended') void this.spills.get(e.runId)?.drain();
    this.emitter.fire({ state, change });
  }

  private async closeSpill(runId: string): Promise<void> {
    const s = this.spills.get(runId);
    this.spills.delete(runId);
    await s?.close();
  }

  private async closeAll(): Promise<void> {
    await Promise.allSettled([...this.spills.keys()].map((id) => this.closeSpill(id)));
  }

  dispose(): void {
    this.listener.dispose();
    this.emitter.dispose();
  }
}

/**
 * Everything the views show about one run, built only from `RunEvent`s: the steps, each rank's
 * markers, last line, warnings and errors, and the bounded log tails. `apply` returns what changed
 * so the VS Code layer refreshes only the affected tree nodes and documents.
 */
import type { RankPhase, RunEvent, StepName, StepRecord } from '../workflow/types';
import { stripAnsi } from './ansi';
import { compareRanks } from './ranks';
import { RunLogs, type LogLine } from './runLogs';
import { lineSeverity, type Severity } from './severity';

export interface RankMarker {
  phase: RankPhase;
  at: number;
  line: string;
}

export interface RankIssue {
  severity: Severity;
  /** 1-based line number in the rank's whole log */
  no: number;
  text: string;
  at: number;
}

export interface RankSummary {
  rank: string;
  phase?: RankPhase;
  markers: RankMarker[];
  lastLine?: string;
  lines: number;
  warnings: number;
  errors: number;
  /** the most recent warnings and errors (bounded: a crash loop must not grow the tree without end) */
  issues: RankIssue[];
}

export interface Change {
  run: boolean;
  steps: boolean;
  /** ranks whose node changed (new lines, markers) */
  ranks: Set<string>;
  /** a rank appeared, so the tree's list of children changed */
  rankAdded: boolean;
  /** lines per rank appended by this event (for documents that follow) */
  lines: Set<string>;
  /** the lines this event stored, numbered (for the disk spill) */
  appended?: { rank: string; lines: LogLine[] };
}

export const MAX_ISSUES_PER_RANK = 100;

export class RunState {
  readonly steps = new Map<StepName, StepRecord>();
  readonly logs: RunLogs;
  private readonly rankMap = new Map<string, RankSummary>();
  endedAt?: number;
  outcome?: 'passed' | 'failed' | 'cancelled';

  constructor(
    readonly runId: string,
    readonly worker: string,
    readonly startedAt: number,
    readonly plannedSteps: readonly StepName[],
    memoryLinesPerRank: number,
  ) {
    this.logs = new RunLogs(memoryLinesPerRank);
  }

  static fromStart(e: Extract<RunEvent, { type: 'run-started' }>, memoryLinesPerRank: number): RunState {
    return new RunState(e.runId, e.worker, e.at, e.steps, memoryLinesPerRank);
  }

  get active(): boolean {
    return this.endedAt === undefined;
  }

  ranks(): RankSummary[] {
    return [...this.rankMap.values()].sort((a, b) => compareRanks(a.rank, b.rank));
  }

  rank(id: string): RankSummary | undefined {
    return this.rankMap.get(id);
  }

  /** Applies one event of this run (events of other runs are ignored: returns undefined). */
  apply(e: RunEvent, now = Date.now()): Change | undefined {
    if (e.runId !== this.runId) return undefined;
    const change: Change = { run: false, steps: false, ranks: new Set(), rankAdded: false, lines: new Set() };
    switch (e.type) {
      case 'run-started':
        change.run = true;
        break;
      case 'step':
        this.steps.set(e.step.name, { ...e.step, evidence: [...e.step.evidence] });
        change.steps = true;
        break;
      case 'rank-marker': {
        const r = this.ensure(e.rank, change);
        // Marker lines arrive raw (vLLM colours its prefix); the tree and the panel show text.
        r.markers.push({ phase: e.phase, at: e.at, line: stripAnsi(e.line) });
        r.phase = e.phase;
        change.ranks.add(e.rank);
        break;
      }
      case 'log-lines': {
        if (e.lines.length === 0) break;
        const r = this.ensure(e.rank, change);
        const stored = this.logs.append(e.rank, e.lines, now);
        this.noteLines(r, stored);
        change.appended = { rank: e.rank, lines: stored };
        change.ranks.add(e.rank);
        change.lines.add(e.rank);
        break;
      }
      case 'run-ended':
        this.endedAt = e.at;
        this.outcome = e.outcome;
        change.run = true;
        break;
    }
    return change;
  }

  private ensure(rank: string, change: Change): RankSummary {
    let r = this.rankMap.get(rank);
    if (!r) {
      r = { rank, markers: [], lines: 0, warnings: 0, errors: 0, issues: [] };
      this.rankMap.set(rank, r);
      change.rankAdded = true;
    }
    return r;
  }

  private noteLines(r: RankSummary, lines: LogLine[]): void {
    for (const l of lines) {
      // Level words survive colouring (escapes sit around them, not inside), so the raw line is tested.
      const sev = lineSeverity(l.raw);
      if (!sev) continue;
      if (sev === 'error') r.errors++;
      else r.warnings++;
      r.issues.push({ severity: sev, no: l.no, text: stripAnsi(l.raw), at: l.at });
    }
    if (r.issues.length > MAX_ISSUES_PER_RANK) r.issues.splice(0, r.issues.length - MAX_ISSUES_PER_RANK);
    const last = lines[lines.length - 1];
    if (last) {
      // Blank lines say nothing in a tree description; keep the last line with text.
      for (let i = lines.length - 1; i >= 0; i--) {
        const text = stripAnsi(lines[i]!.raw);
        if (text.trim()) {
          r.lastLine = text;
          break;
        }
      }
      r.lines = last.no;
    }
  }
}

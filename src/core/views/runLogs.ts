/**
 * The views' in-memory copy of one run's logs: a bounded tail per rank plus a bounded tail of the
 * merged stream (arrival order across ranks). Each stored line keeps its per-rank line number, so
 * a warning found in the tree maps to a line in the rank document, and a global sequence number,
 * so the merged view shows every line once, in the order the lines arrived. Lines are kept as they
 * came (ANSI and all) and cleaned only when a document shows them: under a flood most lines leave
 * the tail unseen, and not copying them halves the garbage the extension host has to collect.
 */
import { compareRanks } from './ranks';
import { Ring } from '../logs/ring';

export interface LogLine {
  rank: string;
  /** the line as received (may carry ANSI escapes; documents strip them) */
  raw: string;
  /** arrival time, ms since epoch */
  at: number;
  /** 1-based line number within its rank's whole log */
  no: number;
  /** 1-based arrival number across all ranks of the run */
  seq: number;
}

/** The merged view holds the very same line objects as the rank tails (no copies). */
export type MergedLine = LogLine;

export interface Tail<T> {
  lines: T[];
  /** lines ever received (the whole log on disk has this many) */
  total: number;
}

export class RunLogs {
  private readonly perRank = new Map<string, { ring: Ring<LogLine>; total: number }>();
  private readonly merged: Ring<MergedLine>;
  private seq = 0;

  constructor(
    readonly capacityPerRank: number,
    mergedCapacity = capacityPerRank * 4,
  ) {
    this.merged = new Ring<MergedLine>(mergedCapacity);
  }

  /** Stores a batch; returns the stored (numbered) lines. */
  append(rank: string, lines: readonly string[], at: number): LogLine[] {
    let r = this.perRank.get(rank);
    if (!r) {
      r = { ring: new Ring<LogLine>(this.capacityPerRank), total: 0 };
      this.perRank.set(rank, r);
    }
    const out = new Array<LogLine>(lines.length);
    for (let i = 0; i < lines.length; i++) {
      const line: LogLine = { rank, raw: lines[i]!, at, no: ++r.total, seq: ++this.seq };
      r.ring.push(line);
      this.merged.push(line);
      out[i] = line;
    }
    return out;
  }

  ranks(): string[] {
    return [...this.perRank.keys()].sort(compareRanks);
  }

  has(rank: string): boolean {
    return this.perRank.has(rank);
  }

  tail(rank: string): Tail<LogLine> {
    const r = this.perRank.get(rank);
    return r ? { lines: r.ring.toArray(), total: r.total } : { lines: [], total: 0 };
  }

  mergedTail(): Tail<MergedLine> {
    return { lines: this.merged.toArray(), total: this.seq };
  }

  get totalLines(): number {
    return this.seq;
  }
}

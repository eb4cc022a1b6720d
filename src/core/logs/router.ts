/**
 * The log router: turns the worker's log chunks into per-rank lines. Each line is assigned to a
 * rank by the backend's prefix (ranks.ts), appended to that rank's file on local disk (the whole
 * log, however long) and to a bounded in-memory tail (memoryLinesPerRank), and announced to
 * listeners in one batch per pushed chunk. Memory stays flat: nothing but the tails, one partial
 * line per source file and the open file descriptors is kept.
 *
 * Consumers: the views (#6: Ranks tree, rank log documents), the workflow (#5: lifecycle markers).
 */
import fs from 'node:fs';
import path from 'node:path';
import { AGENT_RANK, type Backend, classifyLine, compareRanks } from './ranks';
import { Ring } from './ring';

export { AGENT_RANK, MAIN_RANK, classifyLine, compareRanks } from './ranks';

export interface RoutedLine {
  rank: string;
  /** The line as the worker wrote it (prefix and colours included), without the newline. */
  raw: string;
  /** The line without its per-rank prefix: match lifecycle strings against this. */
  text: string;
  /** Worker-side log file it came from ("agent" for the agent's own messages). */
  file: string;
  /** Local arrival time, ms since epoch. */
  at: number;
}

/** All lines of one pushed chunk that went to one rank, in order. */
export interface RankBatch {
  rank: string;
  lines: RoutedLine[];
}

export interface Disposable {
  dispose(): void;
}

export interface LogRouterOptions {
  /** Directory for the per-rank files (created if missing). */
  dir: string;
  backend?: Backend;
  /** Lines kept in memory per rank (dynamoSnapshot.logs.memoryLinesPerRank). */
  memoryLinesPerRank?: number;
  /** Also write every line, in arrival order, to `merged.log`. */
  merged?: boolean;
  /** A line longer than this (no newline seen) is cut and routed as is, so one runaway line cannot grow memory. */
  maxLineBytes?: number;
}

export interface LogRouterStats {
  lines: number;
  bytes: number;
  linesPerRank: Record<string, number>;
}

export interface LogRouter {
  readonly dir: string;
  /** Ranks seen so far, in display order (main, DP0, DP1, …, agent). */
  ranks(): string[];
  /** Called once per pushed chunk with that chunk's lines grouped by rank. */
  onLines(listener: (batches: RankBatch[]) => void): Disposable;
  /** Called the first time a rank is seen. */
  onRank(listener: (rank: string) => void): Disposable;
  /** The last n raw lines of a rank kept in memory (n defaults to all kept). */
  tail(rank: string, n?: number): string[];
  /** The local file holding the whole log of a rank, once the rank has been seen. */
  filePath(rank: string): string | undefined;
  /** The local file holding every line in arrival order (when `merged` is on). */
  mergedPath(): string | undefined;
  /** A chunk of a worker log file; a trailing partial line is kept until its newline arrives. */
  push(file: string, data: string): void;
  /** One whole line for a rank that has no prefix of its own (the agent's messages). */
  pushLine(rank: string, line: string): void;
  /** The source file ended: route its partial last line, if any. */
  endFile(file: string): void;
  stats(): LogRouterStats;
  /** Flushes partial lines and closes the files. Further pushes are ignored. */
  dispose(): void;
}

const DEFAULT_TAIL = 2000;
const DEFAULT_MAX_LINE = 1024 * 1024;

function fileNameFor(rank: string): string {
  return `${rank.replace(/[^A-Za-z0-9_.-]/g, '_')}.log`;
}

class Router implements LogRouter {
  readonly dir: string;
  private readonly backend: Backend;
  private readonly tailSize: number;
  private readonly maxLine: number;
  private readonly tails = new Map<string, Ring>();
  private readonly fds = new Map<string, number>();
  private readonly counts = new Map<string, number>();
  private readonly partial = new Map<string, string>();
  private readonly lineListeners = new Set<(b: RankBatch[]) => void>();
  private readonly rankListeners = new Set<(r: string) => void>();
  private mergedFd: number | undefined;
  private totalLines = 0;
  private totalBytes = 0;
  private disposed = false;

  constructor(o: LogRouterOptions) {
    this.dir = o.dir;
    this.backend = o.backend ?? 'vllm';
    this.tailSize = o.memoryLinesPerRank ?? DEFAULT_TAIL;
    this.maxLine = o.maxLineBytes ?? DEFAULT_MAX_LINE;
    fs.mkdirSync(this.dir, { recursive: true });
    if (o.merged ?? true) this.mergedFd = fs.openSync(path.join(this.dir, 'merged.log'), 'a');
  }

  ranks(): string[] {
    return [...this.tails.keys()].sort(compareRanks);
  }

  onLines(listener: (b: RankBatch[]) => void): Disposable {
    this.lineListeners.add(listener);
    return { dispose: () => this.lineListeners.delete(listener) };
  }

  onRank(listener: (r: string) => void): Disposable {
    this.rankListeners.add(listener);
    return { dispose: () => this.rankListeners.delete(listener) };
  }

  tail(rank: string, n?: number): string[] {
    return this.tails.get(rank)?.last(n) ?? [];
  }

  filePath(rank: string): string | undefined {
    return this.tails.has(rank) ? path.join(this.dir, fileNameFor(rank)) : undefined;
  }

  mergedPath(): string | undefined {
    return this.mergedFd === undefined ? undefined : path.join(this.dir, 'merged.log');
  }

  push(file: string, data: string): void {
    if (this.disposed || data.length === 0) return;
    let text = (this.partial.get(file) ?? '') + data;
    const lastNl = text.lastIndexOf('\n');
    let rest = lastNl < 0 ? text : text.slice(lastNl + 1);
    text = lastNl < 0 ? '' : text.slice(0, lastNl);
    const lines = text.length > 0 || lastNl >= 0 ? text.split('\n') : [];
    if (rest.length > this.maxLine) {
      lines.push(rest);
      rest = '';
    }
    if (rest) this.partial.set(file, rest);
    else this.partial.delete(file);
    // The chunk's complete lines are already in arrival order: merged.log gets them as they are.
    this.route(file, lines, lines.length > 0 && !rest && lastNl >= 0 ? text + '\n' : undefined);
  }

  pushLine(rank: string, line: string): void {
    if (this.disposed) return;
    const at = Date.now();
    this.emit([{ rank, lines: [{ rank, raw: line, text: line, file: rank === AGENT_RANK ? 'agent' : rank, at }] }], line + '\n');
  }

  endFile(file: string): void {
    const rest = this.partial.get(file);
    this.partial.delete(file);
    if (rest) this.route(file, [rest]);
  }

  stats(): LogRouterStats {
    return { lines: this.totalLines, bytes: this.totalBytes, linesPerRank: Object.fromEntries(this.counts) };
  }

  dispose(): void {
    if (this.disposed) return;
    for (const file of [...this.partial.keys()]) this.endFile(file);
    this.disposed = true;
    for (const fd of this.fds.values()) fs.closeSync(fd);
    if (this.mergedFd !== undefined) fs.closeSync(this.mergedFd);
    this.fds.clear();
    this.lineListeners.clear();
    this.rankListeners.clear();
  }

  private route(file: string, lines: string[], asMerged?: string): void {
    if (lines.length === 0) return;
    const at = Date.now();
    const byRank = new Map<string, RoutedLine[]>();
    for (let raw of lines) {
      if (raw.endsWith('\r')) raw = raw.slice(0, -1);
      const c = classifyLine(raw, this.backend);
      let group = byRank.get(c.rank);
      if (!group) byRank.set(c.rank, (group = []));
      group.push({ rank: c.rank, raw, text: c.text, file, at });
    }
    this.emit([...byRank].map(([rank, ls]) => ({ rank, lines: ls })), asMerged ?? lines.join('\n') + '\n');
  }

  /** `mergedChunk`: the same lines in arrival order, for merged.log. */
  private emit(batches: RankBatch[], mergedChunk: string): void {
    for (const b of batches) {
      const ring = this.ensureRank(b.rank);
      let chunk = '';
      for (const l of b.lines) {
        ring.push(l.raw);
        chunk += l.raw + '\n';
      }
      // Synchronous appends keep memory flat: nothing queues behind a slow disk.
      fs.writeSync(this.fds.get(b.rank)!, chunk);
      this.counts.set(b.rank, (this.counts.get(b.rank) ?? 0) + b.lines.length);
      this.totalLines += b.lines.length;
    }
    this.totalBytes += Buffer.byteLength(mergedChunk);
    if (this.mergedFd !== undefined) fs.writeSync(this.mergedFd, mergedChunk);
    for (const l of this.lineListeners) {
      try {
        l(batches);
      } catch {
        // A failing listener must not stop routing for the others.
      }
    }
  }

  private ensureRank(rank: string): Ring {
    let ring = this.tails.get(rank);
    if (ring) return ring;
    ring = new Ring(this.tailSize);
    this.tails.set(rank, ring);
    this.fds.set(rank, fs.openSync(path.join(this.dir, fileNameFor(rank)), 'a'));
    for (const l of this.rankListeners) {
      try {
        l(rank);
      } catch {
        // see emit()
      }
    }
    return ring;
  }
}

export function createLogRouter(options: LogRouterOptions): LogRouter {
  return new Router(options);
}

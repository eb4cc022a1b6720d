/**
 * The log router: turns the worker's log chunks into per-rank lines. Each line is assigned to a
 * rank by the backend's prefix (ranks.ts), appended to that rank's file on local disk (the whole
 * log, however long) and to a bounded in-memory tail (memoryLinesPerRank), and announced to
 * listeners in one batch per pushed chunk. Memory stays flat: nothing but the tails, one partial
 * line per source file, 32 remembered prefixes, one scratch buffer (≤ the largest chunk) and the
 * open file descriptors is kept. Chunks may be raw bytes (the agent's log frames): routing works on
 * bytes and makes strings only for the lines kept in the tails, unless someone listens to onLines.
 *
 * Consumers: the views (#6: Ranks tree, rank log documents), the workflow (#5: lifecycle markers).
 */
import { isAscii } from 'node:buffer';
import fs from 'node:fs';
import path from 'node:path';
import { AGENT_RANK, MAIN_RANK, type Backend, classifyLine, compareRanks } from './ranks';
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
  /**
   * A chunk of a worker log file (text, or its raw bytes as the agent's log frames carry them); a
   * trailing partial line is kept until its newline arrives.
   */
  push(file: string, data: string | Uint8Array): void;
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

const NEWLINE = Buffer.from('\n');
/** Bytes of a line decoded to classify it (every backend's prefix is far shorter). */
const HEAD_BYTES = 512;

/** Consecutive lines of one rank in one pushed chunk: byte ranges of the chunk, and how many lines. */
interface Run {
  starts: number[];
  ends: number[];
  partLines: number[];
  lines: number;
  bytes: number;
}

function addRun(runs: Map<string, Run>, rank: string, start: number, end: number, lines: number): void {
  const run = runs.get(rank);
  if (!run) runs.set(rank, { starts: [start], ends: [end], partLines: [lines], lines, bytes: end - start });
  else {
    run.starts.push(start);
    run.ends.push(end);
    run.partLines.push(lines);
    run.lines += lines;
    run.bytes += end - start;
  }
}

/** write(2) may write less than asked (a full disk, a signal): loop until all of [start, end) is out. */
function writeAll(fd: number, buf: Buffer, start: number, end: number): void {
  for (let p = start; p < end; ) p += fs.writeSync(fd, buf, p, end - p);
}

interface Memo {
  prefix: Buffer;
  rank: string;
}

/** How many recent prefixes are remembered (one engine.log with many DP ranks interleaved, plus pids changing). */
const MEMOS = 32;

function findMemo(memos: Memo[], body: Buffer, pos: number, nl: number): Memo | undefined {
  for (const m of memos) if (nl - pos > m.prefix.length && startsWith(body, pos, m.prefix)) return m;
  return undefined;
}

function startsWith(buf: Buffer, pos: number, prefix: Buffer): boolean {
  for (let i = 0; i < prefix.length; i++) if (buf[pos + i] !== prefix[i]) return false;
  return true;
}

/** Lines of a text that ends with a newline, without it and without a trailing CR each. */
function splitText(text: string): string[] {
  const out = text.split('\n');
  out.pop();
  for (let i = 0; i < out.length; i++) if (out[i]!.endsWith('\r')) out[i] = out[i]!.slice(0, -1);
  return out;
}

/** A chunk's text: latin1 when it is all ASCII (the same characters, decoded about twice as fast). */
export function decodeUtf8(buf: Uint8Array, start = 0, end = buf.length): string {
  const b = Buffer.from(buf.buffer, buf.byteOffset + start, end - start);
  return isAscii(b) ? b.toString('latin1') : b.toString('utf8');
}
const decode = decodeUtf8;

/** The last n lines of a run, oldest first, decoding only those. */
function lastLines(body: Buffer, run: Run, n: number): string[] {
  const chunks: string[][] = [];
  let need = Math.min(n, run.lines);
  for (let i = run.starts.length - 1; i >= 0 && need > 0; i--) {
    const start = run.starts[i]!;
    const end = run.ends[i]!;
    const count = run.partLines[i]!;
    if (count === 1) {
      // Interleaved ranks: a part per line; decode just the line (no split, no ASCII probe).
      const stop = end - 1 > start && body[end - 2] === 0x0d ? end - 2 : end - 1;
      chunks.push([body.toString('utf8', start, stop)]);
      need--;
      continue;
    }
    if (count <= need) {
      chunks.push(splitText(decode(body, start, end)));
      need -= count;
      continue;
    }
    // Find the start of the last `need` lines: step back over `need` newlines (the last one ends the part).
    let p = end - 1;
    for (let k = 0; k < need; k++) p = body.lastIndexOf(10, p - 1);
    chunks.push(splitText(decode(body, p + 1, end)));
    need = 0;
  }
  return chunks.reverse().flat();
}

class Router implements LogRouter {
  readonly dir: string;
  private readonly backend: Backend;
  private readonly tailSize: number;
  private readonly maxLine: number;
  private readonly tails = new Map<string, Ring<string>>();
  private readonly fds = new Map<string, number>();
  private readonly counts = new Map<string, number>();
  private readonly partial = new Map<string, Buffer>();
  /**
   * Recently classified prefixes (bytes) and their ranks, most recent first: a line almost always
   * starts like the previous line, or (one engine.log, ranks interleaved) like a recent one.
   */
  private readonly memos: Memo[] = [];
  /** Reused for gather(); as large as the largest chunk routed (a frame: ≤ 8 MiB). */
  private scratch: Buffer | undefined;
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
    return this.tails.get(rank)?.tail(n ?? Number.MAX_SAFE_INTEGER) ?? [];
  }

  filePath(rank: string): string | undefined {
    return this.tails.has(rank) ? path.join(this.dir, fileNameFor(rank)) : undefined;
  }

  mergedPath(): string | undefined {
    return this.mergedFd === undefined ? undefined : path.join(this.dir, 'merged.log');
  }

  push(file: string, data: string | Uint8Array): void {
    if (this.disposed || data.length === 0) return;
    let buf = typeof data === 'string' ? Buffer.from(data, 'utf8') : Buffer.from(data.buffer, data.byteOffset, data.byteLength);
    const held = this.partial.get(file);
    if (held) buf = Buffer.concat([held, buf]);
    const lastNl = buf.lastIndexOf(10);
    let body = lastNl < 0 ? undefined : buf.subarray(0, lastNl + 1);
    let rest = buf.subarray(lastNl + 1);
    if (rest.length > this.maxLine) {
      // A runaway line: route what we have as one line rather than hold it.
      body = Buffer.concat([buf, NEWLINE]);
      rest = buf.subarray(0, 0);
    }
    // Copy the partial line: keeping a subarray would keep the whole chunk alive.
    if (rest.length > 0) this.partial.set(file, Buffer.from(rest));
    else this.partial.delete(file);
    if (body) this.route(file, body);
  }

  pushLine(rank: string, line: string): void {
    if (this.disposed) return;
    const at = Date.now();
    this.emit([{ rank, lines: [{ rank, raw: line, text: line, file: rank === AGENT_RANK ? 'agent' : rank, at }] }], line + '\n');
  }

  endFile(file: string): void {
    const rest = this.partial.get(file);
    this.partial.delete(file);
    if (rest) this.route(file, Buffer.concat([rest, NEWLINE]));
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

  /**
   * Routes complete lines (`body` ends with a newline) at the byte level: one newline scan per line,
   * the rank classified only when a line does not start with the previous line's prefix, consecutive
   * lines of a rank kept as slices of `body`, one write per rank and one for merged.log. Strings are
   * made only for the lines the tails keep, unless someone listens to onLines.
   */
  private route(file: string, body: Buffer): void {
    const runs = new Map<string, Run>();
    const memos = this.memos;
    let memo: Memo | undefined = memos[0];
    let rank = '';
    let runStart = 0;
    let runLines = 0;
    let lines = 0;
    for (let pos = 0; pos < body.length; ) {
      const nl = body.indexOf(10, pos);
      let r: string;
      if (!(memo && nl - pos > memo.prefix.length && startsWith(body, pos, memo.prefix))) memo = findMemo(memos, body, pos, nl);
      if (memo) {
        r = memo.rank;
      } else {
        const c = this.classifyAt(body, pos, nl);
        r = c.rank;
        if (c.prefixBytes > 0) {
          // Prefix plus the byte after it (TRT-LLM "N: [" needs that byte): equal bytes, equal rank.
          memo = { prefix: Buffer.from(body.subarray(pos, pos + c.prefixBytes + 1)), rank: r };
          memos.unshift(memo);
          if (memos.length > MEMOS) memos.pop();
        }
      }
      if (r !== rank) {
        if (runLines > 0) addRun(runs, rank, runStart, pos, runLines);
        rank = r;
        runStart = pos;
        runLines = 0;
      }
      runLines++;
      lines++;
      pos = nl + 1;
    }
    if (runLines > 0) addRun(runs, rank, runStart, body.length, runLines);
    const listening = this.lineListeners.size > 0;
    const at = listening ? Date.now() : 0;
    const batches: RankBatch[] = [];
    for (const [r, run] of runs) {
      const ring = this.ensureRank(r);
      // Synchronous appends keep memory flat: nothing queues behind a slow disk. One write per rank.
      const fd = this.fds.get(r)!;
      if (run.starts.length === 1) writeAll(fd, body, run.starts[0]!, run.ends[0]!);
      else writeAll(fd, this.gather(body, run), 0, run.bytes);
      this.counts.set(r, (this.counts.get(r) ?? 0) + run.lines);
      if (listening) {
        const ls: RoutedLine[] = [];
        for (let i = 0; i < run.starts.length; i++) {
          for (const raw of splitText(decode(body, run.starts[i]!, run.ends[i]!))) {
            ring.push(raw);
            ls.push({ rank: r, raw, text: classifyLine(raw, this.backend).text, file, at });
          }
        }
        batches.push({ rank: r, lines: ls });
      } else {
        for (const raw of lastLines(body, run, this.tailSize)) ring.push(raw);
      }
    }
    if (this.mergedFd !== undefined) writeAll(this.mergedFd, body, 0, body.length);
    this.totalLines += lines;
    this.totalBytes += body.length;
    if (listening) this.notify(batches);
  }

  /** A rank's lines from an interleaved chunk, copied into one reused buffer (one write, no per-line objects). */
  private gather(body: Buffer, run: Run): Buffer {
    if (!this.scratch || this.scratch.length < run.bytes) this.scratch = Buffer.allocUnsafe(Math.max(run.bytes, 64 * 1024));
    let off = 0;
    for (let i = 0; i < run.starts.length; i++) off += body.copy(this.scratch, off, run.starts[i]!, run.ends[i]!);
    return this.scratch;
  }

  /** Rank of the line at body[pos..nl) and the byte length of its per-rank prefix (0: none). */
  private classifyAt(body: Buffer, pos: number, nl: number): { rank: string; prefixBytes: number } {
    const b = body[pos]!;
    // A line starting with a letter matches no backend's prefix: skip decoding it.
    if ((b >= 0x41 && b <= 0x5a) || (b >= 0x61 && b <= 0x7a)) return { rank: MAIN_RANK, prefixBytes: 0 };
    let end = Math.min(nl, pos + HEAD_BYTES);
    if (end === nl && end > pos && body[end - 1] === 0x0d) end--;
    const head = body.toString('utf8', pos, end);
    const c = classifyLine(head, this.backend);
    const prefixChars = head.length - c.text.length;
    // A prefix that fills the whole (cut) head is not a safe memo key.
    if (prefixChars === 0 || (c.text.length === 0 && end - pos === HEAD_BYTES)) return { rank: c.rank, prefixBytes: 0 };
    return { rank: c.rank, prefixBytes: Buffer.byteLength(head.slice(0, prefixChars)) };
  }

  /** One line for one rank (pushLine). */
  private emit(batches: RankBatch[], mergedChunk: string): void {
    for (const b of batches) {
      const ring = this.ensureRank(b.rank);
      let chunk = '';
      for (const l of b.lines) {
        ring.push(l.raw);
        chunk += l.raw + '\n';
      }
      fs.writeSync(this.fds.get(b.rank)!, chunk);
      this.counts.set(b.rank, (this.counts.get(b.rank) ?? 0) + b.lines.length);
      this.totalLines += b.lines.length;
    }
    this.totalBytes += Buffer.byteLength(mergedChunk);
    if (this.mergedFd !== undefined) fs.writeSync(this.mergedFd, mergedChunk);
    this.notify(batches);
  }

  private notify(batches: RankBatch[]): void {
    for (const l of this.lineListeners) {
      try {
        l(batches);
      } catch {
        // A failing listener must not stop routing for the others.
      }
    }
  }

  private ensureRank(rank: string): Ring<string> {
    let ring = this.tails.get(rank);
    if (ring) return ring;
    ring = new Ring<string>(this.tailSize);
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

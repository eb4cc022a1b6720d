/**
 * The whole log on disk. Memory holds only a bounded tail, so every line the views receive is also
 * appended to a file per rank and to a merged file (arrival order, rank-prefixed), under the run's
 * log folder. Lines are gathered for one event-loop turn and then appended with one synchronous
 * write per file: a flood costs a few large writes into the page cache, and nothing queues in
 * memory behind a slow disk (an async stream without backpressure would grow without bound).
 */
import fs from 'node:fs';
import path from 'node:path';
import { rankFileName } from './ranks';

export const MERGED_FILE = 'merged.log';

export class LogSpill {
  private readonly fds = new Map<string, number>();
  private readonly queued = new Map<string, string[]>();
  private scheduled = false;
  private closed = false;
  private failed?: Error;
  private rankWidth = 0;

  constructor(
    readonly dir: string,
    private readonly onError: (e: Error) => void = () => {},
  ) {}

  rankPath(rank: string): string {
    return path.join(this.dir, rankFileName(rank));
  }

  get mergedPath(): string {
    return path.join(this.dir, MERGED_FILE);
  }

  /** Queues lines of one rank (as received, like the log router's files) for its file and the merged file. */
  append(rank: string, lines: readonly string[]): void {
    if (this.closed || this.failed || lines.length === 0) return;
    this.queue(rankFileName(rank), lines.join('\n') + '\n');
    // The merged file pads ranks to the widest seen so far; its lines stay parseable
    // (`rank | text`) even when the width grows mid-run.
    this.rankWidth = Math.max(this.rankWidth, rank.length);
    const prefix = `${rank.padEnd(this.rankWidth)} | `;
    this.queue(MERGED_FILE, prefix + lines.join('\n' + prefix) + '\n');
  }

  private queue(file: string, text: string): void {
    let q = this.queued.get(file);
    if (!q) this.queued.set(file, (q = []));
    q.push(text);
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(() => this.flush());
    }
  }

  /** Writes everything queued (also called by `drain`/`close`, so nothing waits for the next turn). */
  flush(): void {
    this.scheduled = false;
    if (this.failed) return;
    try {
      for (const [file, parts] of this.queued) {
        if (parts.length === 0) continue;
        const text = parts.join('');
        parts.length = 0;
        fs.writeSync(this.fd(file), text);
      }
    } catch (e) {
      this.failed = e instanceof Error ? e : new Error(String(e));
      this.queued.clear();
      this.onError(this.failed);
    }
  }

  private fd(file: string): number {
    let fd = this.fds.get(file);
    if (fd === undefined) {
      fs.mkdirSync(this.dir, { recursive: true });
      fd = fs.openSync(path.join(this.dir, file), 'a');
      this.fds.set(file, fd);
    }
    return fd;
  }

  /** Writes what is queued: afterwards every line received so far is in the files. */
  drain(): Promise<void> {
    this.flush();
    return Promise.resolve();
  }

  close(): Promise<void> {
    if (!this.closed) {
      this.flush();
      this.closed = true;
      for (const fd of this.fds.values()) fs.closeSync(fd);
      this.fds.clear();
    }
    return Promise.resolve();
  }
}

/** The last `maxLines` lines of a file and how many it has, reading only the end of large files. */
export async function readFileTail(file: string, maxLines: number, maxBytes = 16 * 1024 * 1024): Promise<{ lines: string[]; total?: number; truncated: boolean }> {
  const st = await fs.promises.stat(file);
  const start = Math.max(0, st.size - maxBytes);
  const fh = await fs.promises.open(file, 'r');
  try {
    const buf = Buffer.alloc(st.size - start);
    await fh.read(buf, 0, buf.length, start);
    let lines = buf.toString('utf8').split('\n');
    if (lines[lines.length - 1] === '') lines.pop();
    // A partial first line (we started mid-file) is dropped rather than shown cut.
    if (start > 0) lines = lines.slice(1);
    const truncated = start > 0 || lines.length > maxLines;
    return { lines: lines.slice(-maxLines), total: start === 0 ? lines.length : undefined, truncated };
  } finally {
    await fh.close();
  }
}

/**
 * Lines `from`…`from + count - 1` (1-based) of a file, reading it as a stream: a line that has left
 * the in-memory tail is shown from the whole log with some context, without loading the whole file.
 */
export async function readFileLines(file: string, from: number, count: number): Promise<{ first: number; lines: string[] }> {
  const lines: string[] = [];
  let no = 1;
  let partial = '';
  const last = from + count - 1;
  const stream = fs.createReadStream(file, { encoding: 'utf8', highWaterMark: 1 << 20 });
  try {
    for await (const chunk of stream as AsyncIterable<string>) {
      let start = 0;
      for (;;) {
        const nl = chunk.indexOf('\n', start);
        if (nl < 0) break;
        if (no >= from) lines.push(partial + chunk.slice(start, nl));
        partial = '';
        start = nl + 1;
        if (++no > last) return { first: from, lines };
      }
      // Only the lines we keep need their text; the rest are just counted.
      partial = no >= from ? partial + chunk.slice(start) : '';
    }
    if (partial && no >= from && no <= last) lines.push(partial);
    return { first: from, lines };
  } finally {
    stream.destroy();
  }
}

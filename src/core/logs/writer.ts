/**
 * Disk writes for the log router, off the main thread when that pays: every routed chunk goes to
 * two files (its rank's and merged.log), and on a busy worker those write(2) copies cost as much as
 * the routing itself. A large chunk is copied once into a fixed shared ring (RING_BYTES) and one
 * writer thread writes its ranges from there, in order. Memory stays flat: the ring is all there
 * is; when it is full the caller blocks (Atomics.wait), as it would on a synchronous write. Small
 * chunks, and every chunk when no thread can be started, are written synchronously after the
 * pending ones (per-file order holds: one thread, FIFO, and a synchronous write first drains it).
 */
import fs from 'node:fs';
import { Worker } from 'node:worker_threads';

/** [fd, start, end): a byte range of the chunk for one file. */
export type WriteRange = [fd: number, start: number, end: number];

const RING_BYTES = 32 * 1024 * 1024;
/** Smaller chunks are written at once: a thread round trip is not worth it (and low rates stay synchronous). */
const ASYNC_MIN = 256 * 1024;
/** No progress for this long: the thread is considered dead and writing goes synchronous. */
const STALL_MS = 30_000;

const WORKER_SOURCE = `
const { parentPort } = require('node:worker_threads');
const fs = require('node:fs');
let state, ring;
parentPort.on('message', (m) => {
  if (m.ring) { state = new Int32Array(m.state); ring = Buffer.from(m.ring); return; }
  for (const [fd, start, end] of m.ranges) {
    try {
      for (let p = m.at + start; p < m.at + end; ) p += fs.writeSync(fd, ring, p, m.at + end - p);
    } catch {
      Atomics.add(state, 1, 1);
    }
  }
  Atomics.sub(state, 0, m.charge);
  Atomics.notify(state, 0);
});
`;

class LogWriter {
  private worker: Worker | undefined;
  private failed = false;
  /** [0]: ring bytes handed to the thread and not yet written (incl. skipped tail ends); [1]: write errors in the thread. */
  private readonly state = new Int32Array(new SharedArrayBuffer(8));
  private ring: Buffer | undefined;
  private head = 0;

  write(buf: Buffer, ranges: WriteRange[]): void {
    if (!process.env.TMP_SYNC && buf.length >= ASYNC_MIN && buf.length <= RING_BYTES / 4 && this.thread()) {
      // Contiguous room: if the ring's end is too short, skip it (charged, released in order).
      const skip = this.head + buf.length > RING_BYTES ? RING_BYTES - this.head : 0;
      const charge = skip + buf.length;
      this.waitBelow(RING_BYTES - charge + 1);
      if (this.worker) {
        const at = skip ? 0 : this.head;
        buf.copy(this.ring!, at);
        this.head = at + buf.length;
        Atomics.add(this.state, 0, charge);
        this.worker.postMessage({ at, charge, ranges });
        return;
      }
    }
    this.flush();
    for (const [fd, start, end] of ranges) {
      for (let p = start; p < end; ) p += fs.writeSync(fd, buf, p, end - p);
    }
  }

  /** Blocks until everything handed to the thread is written (page cache). */
  flush(): void {
    this.waitBelow(1);
  }

  get threadErrors(): number {
    return Atomics.load(this.state, 1);
  }

  /** Waits until fewer than `limit` bytes are pending. */
  private waitBelow(limit: number): void {
    if (!this.worker) return;
    let last = Atomics.load(this.state, 0);
    let since = Date.now();
    for (let v = last; v >= Math.max(1, limit); v = Atomics.load(this.state, 0)) {
      if (v !== last) {
        last = v;
        since = Date.now();
      } else if (Date.now() - since > STALL_MS) {
        // A dead thread must not hang the extension: what it held is lost, the rest goes synchronous.
        this.abandon();
        return;
      }
      Atomics.wait(this.state, 0, v, 100);
    }
  }

  private thread(): boolean {
    if (this.worker) return true;
    if (this.failed) return false;
    try {
      const ring = new SharedArrayBuffer(RING_BYTES);
      const w = new Worker(WORKER_SOURCE, { eval: true });
      w.postMessage({ state: this.state.buffer, ring });
      w.unref();
      w.on('error', () => this.abandon());
      w.on('exit', () => this.abandon());
      this.ring = Buffer.from(ring);
      this.worker = w;
      return true;
    } catch {
      this.failed = true;
      return false;
    }
  }

  private abandon(): void {
    if (!this.worker) return;
    this.failed = true;
    const w = this.worker;
    this.worker = undefined;
    this.ring = undefined;
    Atomics.store(this.state, 0, 0);
    void w.terminate().catch(() => undefined);
  }
}

let shared: LogWriter | undefined;

/** One writer thread per process, started on the first large write. */
export function logWriter(): LogWriter {
  return (shared ??= new LogWriter());
}

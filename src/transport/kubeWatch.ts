/**
 * One `kubectl get … --watch --output-watch-events -o json` process: its stdout split into watch
 * events (`{"type": "ADDED" | "MODIFIED" | "DELETED" | "BOOKMARK" | "ERROR", "object": {…}}`), its
 * end reported once with kubectl's last words. Garbage is reported through `onEnd`-independent
 * counters, never thrown: a broken document is skipped.
 */
import { jsonSplitter } from './jsonStream';
import type { RemoteProcess } from './types';

export interface WatchEvent {
  type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';
  object: unknown;
}

const TYPES = new Set(['ADDED', 'MODIFIED', 'DELETED', 'BOOKMARK', 'ERROR']);

export class KubeWatch {
  /** Documents that were not watch events (broken JSON, oversize, unknown type). */
  skipped = 0;
  private stopped = false;
  private stderr = '';

  constructor(
    private readonly proc: RemoteProcess,
    onEvent: (e: WatchEvent) => void,
    onEnd: (why: string) => void,
  ) {
    const split = jsonSplitter(
      (text) => {
        let o: unknown;
        try {
          o = JSON.parse(text);
        } catch {
          this.skipped++;
          return;
        }
        const e = o as { type?: unknown; object?: unknown } | null;
        if (e && typeof e.type === 'string' && TYPES.has(e.type) && e.object !== undefined) onEvent({ type: e.type as WatchEvent['type'], object: e.object });
        else this.skipped++;
      },
      () => this.skipped++,
    );
    proc.stdout.setEncoding('utf8');
    proc.stdout.on('data', (d: string) => split.push(d));
    proc.stderr.setEncoding('utf8');
    proc.stderr.on('data', (d: string) => {
      this.stderr = (this.stderr + d).slice(-4000);
    });
    proc.stdin.end();
    void proc.exited.then((s) => {
      if (this.stopped) return;
      const last = this.stderr.trim().split('\n').filter(Boolean).slice(-2).join(' | ');
      onEnd(last || `kubectl exited (${s.code ?? s.signal ?? '?'})`);
    });
  }

  stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    this.proc.kill('SIGTERM');
  }
}

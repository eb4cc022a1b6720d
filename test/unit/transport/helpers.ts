/** Shared by the transport/agent tests: a scratch dir, the repo root, collecting a follow stream. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { AgentEvent } from '../../../src/core/protocol/agentEvents';
import type { ConnectionEnvironment, SourceHandle, WorkerConnection } from '../../../src/core/worker/types';

/** The repo root, found from the bundled test's location (out/test/...) or the source tree. */
export function repoRoot(): string {
  let d = __dirname;
  while (!fs.existsSync(path.join(d, 'media', 'agent', 'dsw_agent.py'))) {
    const up = path.dirname(d);
    if (up === d) throw new Error('repo root not found above ' + __dirname);
    d = up;
  }
  return d;
}

const scratchDirs: string[] = [];
// Scratch dirs (run dirs, CRIU images, router files) go when the test process ends; DSW_KEEP_SCRATCH=1 keeps them.
process.on('exit', () => {
  if (process.env.DSW_KEEP_SCRATCH === '1') return;
  for (const d of scratchDirs) fs.rmSync(d, { recursive: true, force: true });
});

export function scratch(prefix: string): string {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), `dsw-${prefix}-`));
  scratchDirs.push(d);
  return d;
}

const running: { conn: WorkerConnection; handle: SourceHandle }[] = [];

/** Remembers a started source so `stopAllStarted` (registered with after()) stops it even when a test failed. */
export function track<T extends SourceHandle>(conn: WorkerConnection, handle: T): T {
  running.push({ conn, handle });
  return handle;
}

export async function stopAllStarted(): Promise<void> {
  for (const { conn, handle } of running.splice(0)) {
    await conn.stop(handle, 500).catch(() => undefined);
    await conn.dispose().catch(() => undefined);
  }
}

/** Removes a run dir on the worker (the tests' workers are this machine). */
export function removeRunDir(runDir: string): void {
  fs.rmSync(runDir, { recursive: true, force: true });
}

export function testEnv(scratchDir: string, more: Partial<ConnectionEnvironment> = {}): ConnectionEnvironment {
  return { sshPath: 'ssh', kubectlPath: 'kubectl', extensionRoot: repoRoot(), scratchDir, ...more };
}

export const STANDIN = () => path.join(repoRoot(), 'media', 'engine', 'standin_engine.py');

/**
 * Follows a run in the background, collecting events, until stop() is called.
 * `waitFor` resolves when an event matching the predicate has arrived (or rejects after ms).
 */
export function collect(conn: WorkerConnection, handle: SourceHandle, offsets?: Record<string, number>) {
  const events: AgentEvent[] = [];
  const ac = new AbortController();
  const waiters: { pred: (e: AgentEvent) => boolean; resolve: (e: AgentEvent) => void }[] = [];
  const done = (async () => {
    for await (const e of conn.follow(handle, { signal: ac.signal, offsets })) {
      events.push(e);
      for (const w of [...waiters]) {
        if (w.pred(e)) {
          waiters.splice(waiters.indexOf(w), 1);
          w.resolve(e);
        }
      }
    }
  })();
  return {
    events,
    done,
    logText: (file?: string) => events.flatMap((e) => (e.type === 'log' && (!file || e.file === file) ? [e.data] : [])).join(''),
    waitFor(pred: (e: AgentEvent) => boolean, ms = 20_000): Promise<AgentEvent> {
      const hit = events.find(pred);
      if (hit) return Promise.resolve(hit);
      return new Promise((resolve, reject) => {
        const w = { pred, resolve };
        waiters.push(w);
        setTimeout(() => reject(new Error(`timed out after ${ms} ms waiting; events: ${events.map((e) => e.type).join(',')}`)), ms).unref();
      });
    },
    async stop() {
      ac.abort();
      await done.catch(() => undefined);
    },
  };
}

export async function waitUntil(cond: () => boolean | Promise<boolean>, ms: number, what: string): Promise<void> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await cond()) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`timed out after ${ms} ms: ${what}`);
}

export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}

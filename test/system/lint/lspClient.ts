/**
 * A small LSP client over stdio for the system tests and the bench: spawns `node dist/server.js
 * --stdio`, frames JSON-RPC, answers the server's requests (configuration, registration) and lets the
 * caller wait for notifications such as publishDiagnostics.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';

interface Message {
  jsonrpc: '2.0';
  id?: number | string;
  method?: string;
  params?: unknown;
  result?: unknown;
  error?: { code: number; message: string };
}

type Waiter = { match: (m: Message) => boolean; resolve: (m: Message) => void };

export class LspClient {
  private readonly proc: ChildProcessWithoutNullStreams;
  private buf = Buffer.alloc(0);
  private nextId = 1;
  private readonly pending = new Map<number, { resolve: (m: Message) => void; reject: (e: Error) => void }>();
  private waiters: Waiter[] = [];
  readonly notifications: Message[] = [];
  stderr = '';
  exited: Promise<number | null>;
  /** What `workspace/configuration` answers for `dynamoSnapshot.lint`. */
  settings: unknown = null;

  constructor(serverPath: string, args: string[] = ['--stdio']) {
    this.proc = spawn(process.execPath, [serverPath, ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
    this.proc.stdout.on('data', (d: Buffer) => this.onData(d));
    this.proc.stderr.on('data', (d: Buffer) => (this.stderr += d.toString()));
    // A dead server shows up as `alive === false` and in `stderr`, not as an unhandled EPIPE.
    this.proc.stdin.on('error', (e) => (this.stderr += `[stdin] ${e.message}\n`));
    this.exited = new Promise((r) => this.proc.on('exit', (code, signal) => r(code ?? (signal ? 128 : null))));
  }

  get pid(): number | undefined {
    return this.proc.pid;
  }

  get alive(): boolean {
    return this.proc.exitCode === null && this.proc.signalCode === null;
  }

  private onData(d: Buffer): void {
    this.buf = Buffer.concat([this.buf, d]);
    for (;;) {
      const h = this.buf.indexOf('\r\n\r\n');
      if (h < 0) return;
      const len = Number(/Content-Length: (\d+)/i.exec(this.buf.subarray(0, h).toString())?.[1]);
      if (this.buf.length < h + 4 + len) return;
      const msg = JSON.parse(this.buf.subarray(h + 4, h + 4 + len).toString('utf8')) as Message;
      this.buf = this.buf.subarray(h + 4 + len);
      this.dispatch(msg);
    }
  }

  private dispatch(m: Message): void {
    if (m.id !== undefined && m.method === undefined) {
      const p = this.pending.get(Number(m.id));
      this.pending.delete(Number(m.id));
      if (m.error) p?.reject(new Error(m.error.message));
      else p?.resolve(m);
      return;
    }
    if (m.id !== undefined && m.method) {
      let result: unknown = null;
      if (m.method === 'workspace/configuration') result = ((m.params as { items: unknown[] }).items ?? []).map(() => this.settings);
      if (m.method === 'window/showDocument') result = { success: false };
      this.send({ jsonrpc: '2.0', id: m.id, result });
      return;
    }
    this.notifications.push(m);
    const still: Waiter[] = [];
    for (const w of this.waiters) {
      if (w.match(m)) w.resolve(m);
      else still.push(w);
    }
    this.waiters = still;
  }

  private send(m: Message): void {
    const s = JSON.stringify(m);
    this.proc.stdin.write(`Content-Length: ${Buffer.byteLength(s, 'utf8')}\r\n\r\n${s}`);
  }

  /** Sends a message whose body is given as raw bytes (e.g. with invalid UTF-8 inside a string). */
  sendRawBody(body: Buffer): void {
    this.proc.stdin.write(Buffer.concat([Buffer.from(`Content-Length: ${body.length}\r\n\r\n`), body]));
  }

  notify(method: string, params: unknown): void {
    this.send({ jsonrpc: '2.0', method, params });
  }

  request<T = unknown>(method: string, params: unknown, timeoutMs = 10_000): Promise<T> {
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new Error(`${method} got no response within ${timeoutMs} ms`));
      }, timeoutMs);
      this.pending.set(id, {
        resolve: (m) => {
          clearTimeout(timer);
          resolve(m.result as T);
        },
        reject: (e) => {
          clearTimeout(timer);
          reject(e);
        },
      });
      this.send({ jsonrpc: '2.0', id, method, params });
    });
  }

  /** Resolves with the first notification (from now on) that matches. */
  waitFor(match: (m: Message) => boolean, timeoutMs = 10_000, what = 'notification'): Promise<Message> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w !== waiter);
        reject(new Error(`no ${what} within ${timeoutMs} ms`));
      }, timeoutMs);
      const waiter: Waiter = {
        match,
        resolve: (m) => {
          clearTimeout(timer);
          resolve(m);
        },
      };
      this.waiters.push(waiter);
    });
  }

  /** The next publishDiagnostics for `uri` (optionally of a given version). */
  diagnostics(uri: string, version?: number, timeoutMs = 10_000): Promise<{ uri: string; version?: number; diagnostics: { code: string; range: { start: { line: number } }; data?: unknown }[] }> {
    return this.waitFor(
      (m) => m.method === 'textDocument/publishDiagnostics' && (m.params as { uri: string }).uri === uri && (version === undefined || (m.params as { version?: number }).version === version),
      timeoutMs,
      `diagnostics for ${uri}`,
    ).then((m) => m.params as never);
  }

  async initialize(rootUri: string | null = null): Promise<unknown> {
    const r = await this.request('initialize', {
      processId: process.pid,
      rootUri,
      capabilities: { workspace: { configuration: true, workspaceEdit: { documentChanges: true } }, textDocument: { codeAction: {} } },
    });
    this.notify('initialized', {});
    return r;
  }

  async shutdown(): Promise<number | null> {
    if (this.alive) {
      await this.request('shutdown', null, 5000).catch(() => undefined);
      this.notify('exit', null);
    }
    const t = setTimeout(() => this.proc.kill('SIGKILL'), 5000);
    const code = await this.exited;
    clearTimeout(t);
    return code;
  }
}

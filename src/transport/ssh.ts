/**
 * The ssh transport: the system OpenSSH client (so ~/.ssh/config, agents, ProxyJump, certificates
 * and known_hosts behave exactly as in a terminal), BatchMode, no pty, one shared ControlMaster per
 * host. Every remote command is argv quoted for POSIX sh and base64-wrapped (quote.ts), so no login
 * shell can re-read it (shared/reference/worker-transport.md §1).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { z } from 'zod';
import type { SshTransport as SshSpec } from '../core/settings/workerProfile';
import type { ConnectionEnvironment } from '../core/worker/types';
import { runArgv, spawnArgv } from './process';
import { shCommand, viaPosixSh } from './quote';
import { TransportError, type ExitStatus, type RemoteProcess, type RunOptions, type RunResult, type WorkerTransport } from './types';

type Spec = z.output<typeof SshSpec>;

/** Unix socket paths are limited to ~104 bytes (macOS) / 108 (Linux); `%C` expands to 40 hex digits. */
const MAX_SOCKET_DIR = 55;

export function controlSocketDir(scratchDir: string): string {
  if (scratchDir.length <= MAX_SOCKET_DIR) return path.join(scratchDir, 'ssh');
  const uid = typeof process.getuid === 'function' ? process.getuid() : 0;
  return path.join(os.platform() === 'win32' ? os.tmpdir() : '/tmp', `dsw-${uid}`);
}

export class SshTransport implements WorkerTransport {
  readonly kind = 'ssh' as const;
  readonly label: string;
  private readonly sockDir: string;

  constructor(
    private readonly spec: Spec,
    private readonly env: ConnectionEnvironment,
    private readonly connectSeconds = 30,
  ) {
    this.label = `ssh ${spec.host}`;
    this.sockDir = controlSocketDir(env.scratchDir);
  }

  /** Options common to every ssh call; the host always comes after `--`. */
  baseArgs(): string[] {
    const a: string[] = [];
    if (this.env.sshConfigFile) a.push('-F', this.env.sshConfigFile);
    a.push(
      '-o', 'BatchMode=yes',
      '-o', `ControlPath=${path.join(this.sockDir, 'cm-%C')}`,
      '-o', 'ServerAliveInterval=15',
      '-o', `ConnectTimeout=${Math.ceil(this.connectSeconds)}`,
    );
    if (this.spec.user) a.push('-o', `User=${this.spec.user}`);
    if (this.spec.port) a.push('-o', `Port=${this.spec.port}`);
    if (this.spec.identityFile) a.push('-o', `IdentityFile=${this.spec.identityFile}`);
    for (const o of this.spec.options) a.push('-o', o);
    return a;
  }

  /** Starts the shared master (ControlPersist=60 s) unless one is already up. */
  async connect(signal?: AbortSignal): Promise<void> {
    fs.mkdirSync(this.sockDir, { recursive: true, mode: 0o700 });
    const check = await runArgv(this.env.sshPath, [...this.baseArgs(), '-O', 'check', '--', this.spec.host], { signal, timeoutMs: 10_000 });
    if (check.code === 0) return;
    // stderr goes to a file, not a pipe: the backgrounded master keeps it open and a pipe would never end.
    const errFile = path.join(this.sockDir, `master-${process.pid}-${Date.now()}.err`);
    try {
      const { execa } = await import('execa');
      const r = await execa(
        this.env.sshPath,
        [...this.baseArgs(), '-o', 'ControlMaster=yes', '-o', 'ControlPersist=60', '-f', '-N', '-T', '--', this.spec.host],
        { stdin: 'ignore', stdout: 'ignore', stderr: { file: errFile }, reject: false, cancelSignal: signal, timeout: (this.connectSeconds + 5) * 1000 },
      );
      if (r.exitCode !== 0) {
        const err = readText(errFile);
        throw this.explainFailure({ code: r.exitCode ?? 255, signal: r.signal ?? null }, err) ?? new TransportError(`ssh to ${this.spec.host} failed`, err);
      }
    } finally {
      fs.rmSync(errFile, { force: true });
    }
  }

  spawn(argv: readonly string[]): RemoteProcess {
    return spawnArgv(this.env.sshPath, this.commandArgs(argv));
  }

  run(argv: readonly string[], options?: RunOptions): Promise<RunResult> {
    return runArgv(this.env.sshPath, this.commandArgs(argv), options);
  }

  /** The full ssh argv for one remote command (exported for tests and the benchmark anchor). */
  commandArgs(argv: readonly string[]): string[] {
    return [...this.baseArgs(), '-o', 'ControlMaster=no', '-T', '--', this.spec.host, viaPosixSh(shCommand(argv))];
  }

  explainFailure(status: ExitStatus, stderr: string): TransportError | undefined {
    if (status.code !== 255) return undefined;
    const last = stderr.trim().split('\n').filter(Boolean).slice(-2).join(' | ') || '(ssh printed nothing)';
    return new TransportError(
      `Cannot reach ${this.spec.host} over ssh: ${last}`,
      `Try "ssh ${this.spec.host}" in a terminal: it must log in without any prompt (BatchMode: key or agent, host key already in known_hosts)`,
      last,
    );
  }

  async dispose(): Promise<void> {
    await runArgv(this.env.sshPath, [...this.baseArgs(), '-O', 'exit', '--', this.spec.host], { timeoutMs: 10_000 }).catch(() => undefined);
  }
}

function readText(file: string): string {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}

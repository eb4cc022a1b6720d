/** Shared execa plumbing for the three transports: argv arrays, no shell, unbuffered streams. */
import { execa } from 'execa';
import type { ExitStatus, RemoteProcess, RunOptions, RunResult } from './types';

export function spawnArgv(file: string, args: readonly string[], env?: Record<string, string>): RemoteProcess {
  const child = execa(file, [...args], {
    stdin: 'pipe',
    stdout: 'pipe',
    stderr: 'pipe',
    buffer: false,
    reject: false,
    // Never let execa kill a worker-side job for us: stopping is the agent's business (stdin EOF).
    forceKillAfterDelay: 2000,
    env,
    extendEnv: true,
  });
  const exited: Promise<ExitStatus> = child.then(
    // A program that cannot be started at all reads like the shell's "command not found" (127).
    (r) => ((r as { code?: string }).code === 'ENOENT' ? { code: 127, signal: null } : { code: r.exitCode ?? null, signal: r.signal ?? null }),
    (e: unknown) => ({ code: null, signal: String((e as { signal?: string }).signal ?? 'error') }),
  );
  // A write to a process that is gone must not become an unhandled 'error' event.
  child.stdin!.on('error', () => undefined);
  return {
    stdin: child.stdin!,
    stdout: child.stdout!,
    stderr: child.stderr!,
    exited,
    kill: (signal = 'SIGTERM') => {
      child.kill(signal);
    },
  };
}

/** Runs to completion, collecting output; the abort signal and timeout kill the local process. */
export async function runArgv(file: string, args: readonly string[], o: RunOptions = {}, env?: Record<string, string>): Promise<RunResult> {
  const r = await execa(file, [...args], {
    input: o.input,
    stdin: o.input === undefined ? 'ignore' : undefined,
    reject: false,
    cancelSignal: o.signal,
    timeout: o.timeoutMs,
    maxBuffer: 64 * 1024 * 1024,
    env,
    extendEnv: true,
    stripFinalNewline: false,
  });
  return { code: r.exitCode ?? (r.signal ? 128 : 1), stdout: String(r.stdout ?? ''), stderr: String(r.stderr ?? '') };
}

/** Runs `node dist/cli.js …` as a user would, collecting its output; killed past the timeout. */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { repoRoot } from '../../support/paths';

export const CLI = path.join(repoRoot, 'dist', 'cli.js');

export function runCli(args: string[], cwd: string, timeoutMs = 120_000): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, ...args], { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

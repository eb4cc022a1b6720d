/** The local transport: the same interface, on this machine. */
import { runArgv, spawnArgv } from './process';
import type { RemoteProcess, RunOptions, RunResult, WorkerTransport } from './types';

export class LocalTransport implements WorkerTransport {
  readonly kind = 'local' as const;
  readonly label = 'local';

  async connect(): Promise<void> {
    // Nothing to reach.
  }

  spawn(argv: readonly string[]): RemoteProcess {
    return spawnArgv(argv[0]!, argv.slice(1));
  }

  run(argv: readonly string[], options?: RunOptions): Promise<RunResult> {
    return runArgv(argv[0]!, argv.slice(1), options);
  }

  async dispose(): Promise<void> {
    // Nothing shared to close.
  }
}

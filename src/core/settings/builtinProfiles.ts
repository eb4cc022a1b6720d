/**
 * Built-in worker profiles. `local-demo` runs the CPU stand-in engine (media/engine) on this
 * machine with python3: two data-parallel ranks with vLLM's per-rank prefixes, protocol capture
 * mode, nothing to install.
 */
import path from 'node:path';
import { LOCAL_DEMO, WorkerProfile } from './workerProfile';

export const STANDIN_ENGINE_RELATIVE_PATH = path.join('media', 'engine', 'standin_engine.py');

export function localDemoProfile(extensionRoot: string, extraArgs: string[] = []): WorkerProfile {
  return WorkerProfile.parse({
    name: LOCAL_DEMO,
    description: 'Stand-in engine on this machine (CPU only, 2 data-parallel ranks, vLLM-style logs)',
    transport: { kind: 'local' },
    backend: 'vllm',
    command: ['python3', path.join(extensionRoot, STANDIN_ENGINE_RELATIVE_PATH), '--dp', '2', ...extraArgs],
    python: 'python3',
    captureMode: 'protocol',
    dataParallelSize: 2,
    smoke: { model: 'standin/tiny-model', requests: 5 },
    timeouts: { readySeconds: 60, warmupSeconds: 60, captureSeconds: 60, exitSeconds: 20, restoreSeconds: 60, requestSeconds: 10 },
  });
}

/** The user's profiles plus the built-ins; a user profile named `local-demo` replaces the built-in. */
export function allProfiles(userProfiles: readonly WorkerProfile[], extensionRoot: string): WorkerProfile[] {
  const out = [...userProfiles];
  if (!out.some((p) => p.name === LOCAL_DEMO)) out.push(localDemoProfile(extensionRoot));
  return out;
}

/**
 * Built-in worker profiles. `local-demo` runs the CPU stand-in engine (media/engine) on this
 * machine with python3: two data-parallel ranks with vLLM's per-rank prefixes, protocol capture
 * mode, nothing to install. `real-lifecycle` runs the same CPU engine inside the real ai-dynamo
 * snapshot lifecycle (media/engine/real_lifecycle_engine.py) with the Python of the repository's
 * .venv (scripts/python/venv.sh) when there is one; without the package its start step fails with
 * the engine's own message naming what is missing.
 */
import fs from 'node:fs';
import path from 'node:path';
import { LOCAL_DEMO, WorkerProfile } from './workerProfile';

export const STANDIN_ENGINE_RELATIVE_PATH = path.join('media', 'engine', 'standin_engine.py');
export const REAL_LIFECYCLE_ENGINE_RELATIVE_PATH = path.join('media', 'engine', 'real_lifecycle_engine.py');
export const REAL_LIFECYCLE = 'real-lifecycle';

/** A CPU engine with 2 DP ranks and vLLM-style logs on this machine, released through the protocol. */
function demoProfile(name: string, description: string, command: string[]): WorkerProfile {
  return WorkerProfile.parse({
    name,
    description,
    transport: { kind: 'local' },
    backend: 'vllm',
    command,
    python: 'python3',
    captureMode: 'protocol',
    dataParallelSize: 2,
    smoke: { model: 'standin/tiny-model', requests: 5 },
    timeouts: { readySeconds: 60, warmupSeconds: 60, captureSeconds: 60, exitSeconds: 20, restoreSeconds: 60, requestSeconds: 10 },
  });
}

export function localDemoProfile(extensionRoot: string, extraArgs: string[] = []): WorkerProfile {
  return demoProfile(LOCAL_DEMO, 'Stand-in engine on this machine (CPU only, 2 data-parallel ranks, vLLM-style logs)', [
    'python3',
    path.join(extensionRoot, STANDIN_ENGINE_RELATIVE_PATH),
    '--dp',
    '2',
    ...extraArgs,
  ]);
}

/** The Python that has the pinned ai-dynamo package: the repository's .venv, else python3. */
export function dynamoPython(extensionRoot: string): string {
  const venv = path.join(extensionRoot, '.venv', 'bin', 'python');
  return fs.existsSync(venv) ? venv : 'python3';
}

export function realLifecycleProfile(extensionRoot: string, extraArgs: string[] = []): WorkerProfile {
  return demoProfile(REAL_LIFECYCLE, 'The real ai-dynamo snapshot lifecycle around the CPU stand-in engine (2 data-parallel ranks, vLLM-style logs)', [
    dynamoPython(extensionRoot),
    path.join(extensionRoot, REAL_LIFECYCLE_ENGINE_RELATIVE_PATH),
    '--dp',
    '2',
    ...extraArgs,
  ]);
}

/** The user's profiles plus the built-ins; a user profile with a built-in's name replaces it. */
export function allProfiles(userProfiles: readonly WorkerProfile[], extensionRoot: string): WorkerProfile[] {
  const out = [...userProfiles];
  if (!out.some((p) => p.name === LOCAL_DEMO)) out.push(localDemoProfile(extensionRoot));
  if (!out.some((p) => p.name === REAL_LIFECYCLE)) out.push(realLifecycleProfile(extensionRoot));
  return out;
}

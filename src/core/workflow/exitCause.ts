/**
 * Links a bad source exit to the code behind it: finds the backend's snapshot module in the workspace
 * (`<backend>/snapshot.py`, Dynamo's layout `components/src/dynamo/<backend>/snapshot.py`, or any
 * `snapshot.py` for a custom backend), lints it with the SNAP rules, and returns each SNAP001 finding
 * (an exit through SystemExit on the capture path) as evidence pointing at the offending line.
 * The linter is injected: the CLI runs the lint engine in-process (exitCauseLint.ts), the extension
 * asks the CLI bundle, so the extension bundle does not carry the parser.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { ExitCauseFinder } from './context';
import type { Evidence } from './types';

const SKIP_DIRS = new Set(['node_modules', '.git', '.hg', 'dist', 'out', '.venv', 'venv', '__pycache__', 'site-packages', '.tox', '.mypy_cache', 'build']);
const MAX_ENTRIES = 50_000;

/** Snapshot modules under `root` that belong to `backend` (depth-first, bounded). */
export async function findSnapshotModules(root: string, backend: string, signal?: AbortSignal): Promise<string[]> {
  const found: string[] = [];
  let seen = 0;
  const walk = async (dir: string): Promise<void> => {
    if (signal?.aborted || seen > MAX_ENTRIES) return;
    let entries: fs.Dirent[];
    try {
      entries = await fs.promises.readdir(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      seen++;
      const p = path.join(dir, e.name);
      if (e.isDirectory()) {
        if (!SKIP_DIRS.has(e.name) && !e.name.startsWith('.')) await walk(p);
      } else if (e.isFile() && e.name === 'snapshot.py') {
        found.push(p);
      }
    }
  };
  await walk(root);
  if (backend === 'custom') return found;
  // The backend's own module first (vllm/snapshot.py); the shared lifecycle module is not the one that exits.
  return found.filter((f) => path.basename(path.dirname(f)) === backend);
}

/** One SNAP001 finding: absolute file, 0-based line. */
export interface ExitFinding {
  file: string;
  line: number;
  message: string;
}

/** Lints files with the SNAP rules and returns their SNAP001 findings (in-process or through the CLI). */
export type Snap001Linter = (root: string, files: string[], signal?: AbortSignal) => Promise<ExitFinding[]>;

/** An ExitCauseFinder over a workspace root with the given linter. */
export function workspaceExitCauseFinder(root: string, lint: Snap001Linter): ExitCauseFinder {
  return async (backend, signal) => {
    const files = await findSnapshotModules(root, backend, signal);
    if (files.length === 0) return [{ kind: 'note', text: `no ${backend === 'custom' ? '' : `${backend}/`}snapshot.py in ${root}, so no link to the line that exits` }];
    const findings = await lint(root, files, signal);
    const out: Evidence[] = findings.map((f) => ({ kind: 'diagnostic', text: `SNAP001 ${f.message}`, location: { file: f.file, line: f.line } }));
    if (out.length === 0) out.push({ kind: 'note', text: `no SNAP001 finding in ${files.map((f) => path.relative(root, f)).join(', ')}: the exit comes from elsewhere (see the log tail)` });
    return out;
  };
}

/** The Python files under the paths given to `dsw lint` (folders walked, caches and environments skipped). */
import fs from 'node:fs';
import path from 'node:path';

const SKIP = new Set(['.git', '.hg', '.svn', 'node_modules', '__pycache__', '.venv', 'venv', '.tox', '.nox', '.mypy_cache', '.pytest_cache', '.ruff_cache']);

export class MissingPathError extends Error {}

export function pythonFiles(paths: readonly string[], cwd: string): string[] {
  const out: string[] = [];
  const walk = (dir: string): void => {
    const entries = fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name));
    for (const e of entries) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) {
        if (!SKIP.has(e.name)) walk(p);
      } else if (e.isFile() && (e.name.endsWith('.py') || e.name.endsWith('.pyi'))) out.push(p);
    }
  };
  for (const given of paths) {
    const abs = path.resolve(cwd, given);
    let st: fs.Stats;
    try {
      st = fs.statSync(abs);
    } catch {
      throw new MissingPathError(`no such file or folder: ${given}`);
    }
    if (st.isDirectory()) walk(abs);
    else out.push(abs); // a file named explicitly is linted whatever its extension
  }
  return [...new Set(out)];
}

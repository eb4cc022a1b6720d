/** Shared by the lint unit tests: one parser per process, and `python3 -m py_compile` over many texts. */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Parser } from 'web-tree-sitter';
import { createParser, findWasmDir } from '../../../src/lint/index';
import { repoRoot } from '../../support/paths';

let parser: Promise<Parser> | undefined;

export function sharedParser(): Promise<Parser> {
  parser ??= createParser(findWasmDir(repoRoot));
  return parser;
}

export const pythonVersion: [number, number] = (() => {
  const r = spawnSync('python3', ['-c', 'import sys; print(sys.version_info[0], sys.version_info[1])'], { encoding: 'utf8' });
  if (r.status !== 0) return [0, 0];
  const [a, b] = r.stdout.trim().split(' ').map(Number);
  return [a!, b!];
})();

/** Compiles each text with CPython; returns the error messages by name (empty map: all compiled). */
export function pyCompile(texts: Record<string, string>): Map<string, string> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dsw-pycompile-'));
  try {
    const files: Record<string, string> = {};
    Object.entries(texts).forEach(([name, text], i) => {
      const f = path.join(dir, `case${i}.py`);
      fs.writeFileSync(f, text);
      files[f] = name;
    });
    const script = 'import sys, py_compile\nfor f in sys.argv[1:]:\n    try:\n        py_compile.compile(f, doraise=True)\n    except py_compile.PyCompileError as e:\n        print(f + "\\t" + str(e).replace("\\n", " "))\n';
    const r = spawnSync('python3', ['-c', script, ...Object.keys(files)], { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`python3 failed: ${r.stderr}`);
    const out = new Map<string, string>();
    for (const line of r.stdout.split('\n').filter(Boolean)) {
      const [f, msg] = line.split('\t');
      out.set(files[f!] ?? f!, msg ?? '');
    }
    return out;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

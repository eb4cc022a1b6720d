/**
 * Loads web-tree-sitter and the tree-sitter-python grammar once per process. The two .wasm files sit
 * beside the bundle (dist/); tests and the bench find them by walking up to the repository's dist/ or
 * node_modules/ (python-analysis.md §3: never from a third-party wasm bundle).
 */
import fs from 'node:fs';
import path from 'node:path';
import { Language, Parser } from 'web-tree-sitter';

const WASM = ['web-tree-sitter.wasm', 'tree-sitter-python.wasm'] as const;

let loading: Promise<Language> | undefined;

/** The directory holding both wasm files: `dir` if given, else beside this bundle or up the tree. */
export function findWasmDir(start: string = __dirname): string {
  const candidates: string[] = [];
  for (let dir = start; ; dir = path.dirname(dir)) {
    candidates.push(dir, path.join(dir, 'dist'));
    if (path.dirname(dir) === dir) break;
  }
  for (const dir of candidates) {
    if (WASM.every((f) => fs.existsSync(path.join(dir, f)))) return dir;
  }
  // A source checkout before `npm run build`: the packages themselves.
  for (let dir = start; ; dir = path.dirname(dir)) {
    const nm = path.join(dir, 'node_modules');
    const a = path.join(nm, 'web-tree-sitter', WASM[0]);
    const b = path.join(nm, 'tree-sitter-python', WASM[1]);
    if (fs.existsSync(a) && fs.existsSync(b)) return nm;
    if (path.dirname(dir) === dir) break;
  }
  throw new Error(`cannot find ${WASM.join(' and ')} near ${start}`);
}

function wasmPath(dir: string, file: (typeof WASM)[number]): string {
  const flat = path.join(dir, file);
  if (fs.existsSync(flat)) return flat;
  return path.join(dir, file === WASM[0] ? 'web-tree-sitter' : 'tree-sitter-python', file);
}

/** Initialises the runtime and the grammar (65–80 ms, once). */
export function loadPython(dir: string = findWasmDir()): Promise<Language> {
  loading ??= (async () => {
    await Parser.init({ locateFile: (name: string) => (name.endsWith('.wasm') ? wasmPath(dir, WASM[0]) : path.join(dir, name)) });
    return Language.load(wasmPath(dir, WASM[1]));
  })();
  return loading;
}

export async function createParser(dir?: string): Promise<Parser> {
  const language = await loadPython(dir);
  const parser = new Parser();
  parser.setLanguage(language);
  return parser;
}

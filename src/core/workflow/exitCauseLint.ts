/**
 * The in-process SNAP001 linter for `workspaceExitCauseFinder`: the lint engine (src/lint) and its
 * tree-sitter parser, loaded on first use. Used by the CLI, whose bundle carries the engine anyway.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { ExitFinding, Snap001Linter } from './exitCause';

export function inProcessLinter(wasmDir?: string): Snap001Linter {
  return async (root, files) => {
    const lint = await import('../../lint/index');
    const parser = await lint.createParser(wasmDir);
    const out: ExitFinding[] = [];
    try {
      for (const file of files) {
        const text = await fs.promises.readFile(file, 'utf8');
        // Every file handed over is a snapshot module, whatever the user's include globs say.
        const findings = lint.lintText(parser, text, { relPath: path.relative(root, file), absPath: file }, { include: ['**/*.py'], severity: {} });
        for (const f of findings) if (f.code === 'SNAP001') out.push({ file, line: f.range.start.line, message: f.message });
      }
    } finally {
      parser.delete();
    }
    return out;
  };
}

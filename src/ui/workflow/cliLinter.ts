/**
 * SNAP001 findings for the source-exit link, from the CLI bundle (`dist/cli.js lint --format json`)
 * in a child Node process: the extension bundle then does not carry the tree-sitter parser. Under
 * desktop VS Code `process.execPath` is Electron, hence ELECTRON_RUN_AS_NODE.
 */
import path from 'node:path';
import { execa } from 'execa';
import { z } from 'zod';
import type { ExitFinding, Snap001Linter } from '../../core/workflow/exitCause';

const Finding = z.looseObject({ path: z.string(), code: z.string(), line: z.number().int().positive(), message: z.string() });

export function cliLinter(extensionRoot: string): Snap001Linter {
  return async (root, files, signal) => {
    const r = await execa(process.execPath, [path.join(extensionRoot, 'dist', 'cli.js'), 'lint', '--format', 'json', ...files], {
      cwd: root,
      env: { ELECTRON_RUN_AS_NODE: '1' },
      reject: false,
      cancelSignal: signal,
      timeout: 60_000,
    });
    // Exit 1 means "error-severity findings", which is what we are looking for; 2 is a usage error.
    if (r.exitCode === 2 || r.exitCode === undefined) throw new Error(`dsw lint failed: ${String(r.stderr).trim().slice(0, 300)}`);
    const parsed = z.array(Finding).safeParse(JSON.parse(String(r.stdout) || '[]'));
    if (!parsed.success) throw new Error('dsw lint printed JSON of an unexpected shape');
    return parsed.data.filter((f) => f.code === 'SNAP001').map((f): ExitFinding => ({ file: path.resolve(root, f.path), line: f.line - 1, message: f.message }));
  };
}

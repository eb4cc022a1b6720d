/** Paths for tests, which run bundled from out/test/…: find the repository root by walking up. */
import fs from 'node:fs';
import path from 'node:path';

function findRoot(from: string): string {
  for (let dir = from; ; dir = path.dirname(dir)) {
    const pkg = path.join(dir, 'package.json');
    if (fs.existsSync(pkg) && JSON.parse(fs.readFileSync(pkg, 'utf8')).name === 'dynamo-snapshot-workbench') return dir;
    if (path.dirname(dir) === dir) throw new Error(`repository root not found above ${from}`);
  }
}

export const repoRoot = findRoot(__dirname);
export const fixtures = path.join(repoRoot, 'test', 'fixtures');

/** Finds the private CRIU of scripts/criu-sysroot.sh (or $DSW_CRIU) and says why it cannot run, if it cannot. */
import fs from 'node:fs';
import path from 'node:path';
import { execa } from 'execa';

export async function findCriu(repoRoot: string): Promise<{ path?: string; why?: string }> {
  const p = process.env.DSW_CRIU || path.join(repoRoot, '.cache', 'criu', 'criu');
  if (!fs.existsSync(p)) return { why: `no CRIU at ${p} (run scripts/criu-sysroot.sh or set DSW_CRIU)` };
  if (process.getuid?.() !== 0) return { why: 'CRIU needs root' };
  const r = await execa(p, ['check'], { reject: false, all: true });
  if (r.exitCode !== 0) return { why: `criu check failed: ${String(r.all).trim().split('\n').slice(-1)[0]}` };
  return { path: p };
}

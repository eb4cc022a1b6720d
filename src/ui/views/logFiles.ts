/**
 * Where a run's whole logs are on disk and copying them (Save Logs…). A run driven by the workflow
 * has the log router's files (one per rank + merged.log); runs whose events came without a router
 * have the views' own spill. Both use `<rank>.log` names, so older runs are found by listing a folder.
 */
import fs from 'node:fs';
import path from 'node:path';
import { MERGED_FILE } from '../../core/views/logSpill';
import { rankFileName } from '../../core/views/ranks';

export interface RunLogFiles {
  dir: string;
  rank(rank: string): string;
  merged: string;
}

export function filesIn(dir: string): RunLogFiles {
  return { dir, rank: (r) => path.join(dir, rankFileName(r)), merged: path.join(dir, MERGED_FILE) };
}

/** Rank ids with a file in `dir` (file name minus `.log`; merged.log excluded). */
export async function ranksOnDisk(dir: string): Promise<string[]> {
  try {
    return (await fs.promises.readdir(dir)).filter((f) => f.endsWith('.log') && f !== MERGED_FILE).map((f) => f.slice(0, -4));
  } catch {
    return [];
  }
}

/** Copies the per-rank files and merged.log of a run into `dest` (created); returns the files written. */
export async function copyRunLogs(files: RunLogFiles, ranks: readonly string[], dest: string): Promise<string[]> {
  await fs.promises.mkdir(dest, { recursive: true });
  const written: string[] = [];
  const sources = [...ranks.map((r) => files.rank(r)), files.merged];
  for (const src of sources) {
    try {
      await fs.promises.access(src);
    } catch {
      continue;
    }
    const to = path.join(dest, path.basename(src));
    await fs.promises.copyFile(src, to);
    written.push(to);
  }
  return written;
}

/** A document URI → the path the `include` globs are matched against (relative to its workspace folder). */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FileInfo } from '../lint/analyze';

export function fileInfo(uri: string, roots: readonly string[]): FileInfo {
  if (!uri.startsWith('file:')) {
    // Untitled and virtual documents: match on the URI path only.
    const p = decodeURIComponent(uri.replace(/^[a-z-]+:/i, ''));
    return { relPath: p.replace(/^\/+/, ''), absPath: p };
  }
  const abs = fileURLToPath(uri);
  const root = roots.filter((r) => abs === r || abs.startsWith(r.endsWith(path.sep) ? r : r + path.sep)).sort((a, b) => b.length - a.length)[0];
  return { relPath: root ? path.relative(root, abs) : abs, absPath: abs };
}

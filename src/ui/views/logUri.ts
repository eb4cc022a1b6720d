/**
 * Addresses of the read-only log documents: `dynamo-snapshot-log:/<runId>/<DP0>.log?rank=DP0` for a
 * rank, `dynamo-snapshot-log:/<runId>/merged.log` for all ranks. The file name makes the editor tab
 * say which rank it is; the query carries the exact rank id (file names are sanitised).
 */
import * as vscode from 'vscode';
import { MERGED_FILE } from '../../core/views/logSpill';
import { rankFileName } from '../../core/views/ranks';

export const LOG_SCHEME = 'dynamo-snapshot-log';

/**
 * `around`: a 1-based line of the rank's whole log that has left memory; the document then shows
 * that stretch of the file on disk (static) instead of the live tail.
 */
export type LogTarget = { runId: string; rank: string; around?: number } | { runId: string; merged: true };

export function logUri(t: LogTarget): vscode.Uri {
  const runId = encodeURIComponent(t.runId);
  if ('merged' in t) return vscode.Uri.from({ scheme: LOG_SCHEME, path: `/${runId}/${MERGED_FILE}` });
  const q = new URLSearchParams({ rank: t.rank });
  if (t.around !== undefined) q.set('around', String(t.around));
  return vscode.Uri.from({ scheme: LOG_SCHEME, path: `/${runId}/${rankFileName(t.rank)}`, query: q.toString() });
}

export function parseLogUri(uri: vscode.Uri): LogTarget | undefined {
  if (uri.scheme !== LOG_SCHEME) return undefined;
  const [, runId, file] = uri.path.split('/');
  if (!runId || !file) return undefined;
  const id = decodeURIComponent(runId);
  if (file === MERGED_FILE) return { runId: id, merged: true };
  const q = new URLSearchParams(uri.query);
  const rank = q.get('rank');
  const around = Number(q.get('around'));
  if (!rank) return undefined;
  return Number.isInteger(around) && around > 0 ? { runId: id, rank, around } : { runId: id, rank };
}

/**
 * Text of the read-only log documents. A document holds the in-memory tail only; when lines have
 * been dropped from memory, a first line says how many and where the whole log is on disk.
 */
import { stripAnsi } from './ansi';
import type { LogLine, MergedLine, Tail } from './runLogs';

export interface FormatOptions {
  timestamps: boolean;
  /** where the whole log lives, named in the header when the tail is truncated */
  fullPath?: string;
  /** what the document shows, for the header ("DP0", "all ranks") */
  what: string;
}

/** "15:04:05.123" in local time: when the line arrived at the extension. */
export function formatTime(at: number): string {
  const d = new Date(at);
  const p = (n: number, w = 2) => String(n).padStart(w, '0');
  return `${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}.${p(d.getMilliseconds(), 3)}`;
}

export function truncationHeader(shown: number, total: number, o: FormatOptions): string {
  const where = o.fullPath ? ` The whole log is on disk: ${o.fullPath}` : '';
  return `# ${o.what}: showing the last ${shown} of ${total} lines.${where}`;
}

/** Lines of a document that shows `tail`: the header (if truncated) is line 0. */
export function headerLines(tail: Tail<unknown>): number {
  return tail.total > tail.lines.length ? 1 : 0;
}

export function formatRankLog(tail: Tail<LogLine>, o: FormatOptions): string {
  const parts: string[] = [];
  if (headerLines(tail)) parts.push(truncationHeader(tail.lines.length, tail.total, o));
  for (const l of tail.lines) {
    const text = stripAnsi(l.raw);
    parts.push(o.timestamps ? `${formatTime(l.at)} ${text}` : text);
  }
  return parts.join('\n');
}

/**
 * Merged stream: each line once, in arrival order, prefixed like `docker compose logs` does
 * (`DP0   | text`): the rank padded to one width, then `| `, so the text itself is never touched.
 */
export function formatMergedLog(tail: Tail<MergedLine>, o: FormatOptions): string {
  const width = tail.lines.reduce((w, l) => Math.max(w, l.rank.length), 0);
  const parts: string[] = [];
  if (headerLines(tail)) parts.push(truncationHeader(tail.lines.length, tail.total, o));
  for (const l of tail.lines) {
    const prefix = `${l.rank.padEnd(width)} | `;
    const text = stripAnsi(l.raw);
    parts.push(o.timestamps ? `${formatTime(l.at)} ${prefix}${text}` : `${prefix}${text}`);
  }
  return parts.join('\n');
}

/** Parses a merged-document line back into rank and text (used by tests and by Save Logs… checks). */
export function parseMergedLine(line: string): { rank: string; text: string } | undefined {
  const m = /^(?:\d\d:\d\d:\d\d\.\d{3} )?(.+?) *\| (.*)$/s.exec(line);
  return m ? { rank: m[1]!, text: m[2]! } : undefined;
}

/** 0-based document line of the rank line numbered `no`, or undefined if it left the tail. */
export function documentLineOf(tail: Tail<LogLine>, no: number): number | undefined {
  const first = tail.lines[0]?.no;
  if (first === undefined || no < first || no > first + tail.lines.length - 1) return undefined;
  return no - first + headerLines(tail);
}

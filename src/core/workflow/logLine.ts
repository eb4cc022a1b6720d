/**
 * Turns one raw worker log line into (rank, message): the log router's classifier (core/logs/ranks.ts)
 * assigns the rank and strips the per-rank prefix (dynamo-snapshot.md §7), so the workflow and the
 * views agree on rank ids; this module then strips the logging header (timestamp, level, logger) so
 * lifecycle strings can be matched exactly against the message alone.
 */
import { classifyLine, type Backend } from '../logs/ranks';

// eslint-disable-next-line no-control-regex
const ANSI = /\x1b\[[0-9;]*m/g;
const DYNAMO = /^\d{4}-\d{2}-\d{2}T[\d:.]+Z?\s+(?:TRACE|DEBUG|INFO|WARN|WARNING|ERROR)\s+\S+?:\s/;
// vLLM's own logger: `INFO 09-02 15:50:01 [core.py:123] msg`; Python's default: `INFO:name:msg`.
const VLLM_LOGGER = /^(?:DEBUG|INFO|WARNING|ERROR|CRITICAL)\s+\d{2}-\d{2}\s+[\d:.]+\s+(?:\[[^\]]*\]\s+)?/;
const PY_DEFAULT = /^(?:DEBUG|INFO|WARNING|ERROR|CRITICAL):[\w.]+:/;

export interface ParsedLogLine {
  rank: string;
  /** The message with every prefix and header removed (what lifecycle strings are matched against). */
  message: string;
}

function messageOf(rest: string): string {
  let m = rest;
  if (m.startsWith('{')) {
    // DYN_LOGGING_JSONL=true: the message is a field.
    try {
      const o = JSON.parse(m) as Record<string, unknown>;
      const fields = (o.fields ?? {}) as Record<string, unknown>;
      const msg = o.message ?? o.msg ?? fields.message;
      if (typeof msg === 'string') return msg.trim();
    } catch {
      /* not JSON after all: match the raw text */
    }
  }
  m = m.replace(DYNAMO, '').replace(VLLM_LOGGER, '').replace(PY_DEFAULT, '');
  return m.trim();
}

/** Parses one line (no trailing newline). Never throws. */
export function parseLogLine(raw: string, backend: Backend = 'vllm'): ParsedLogLine {
  const { rank, text } = classifyLine(raw.replace(/\r$/, ''), backend);
  return { rank, message: messageOf(text.replace(ANSI, '')) };
}

/** Splits a chunk of complete lines (as the agent sends them) into lines, dropping the final empty one. */
export function splitLines(data: string): string[] {
  const lines = data.split('\n');
  if (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  return lines;
}

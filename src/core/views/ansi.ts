/**
 * Log lines arrive with terminal escapes (vLLM colours its per-rank prefix, tqdm redraws with \r).
 * A text document cannot render them, so they are removed cleanly: CSI (colours, cursor moves),
 * OSC (titles, hyperlinks) and the remaining C0 controls except tab. A carriage return means the
 * terminal would have overwritten the line, so only the text after the last one is kept.
 */

// CSI: ESC [ params intermediates final; OSC: ESC ] … BEL or ESC \; two-byte escapes: ESC + one char.
// 8-bit CSI (\x9b) is included because some tools emit it when they think the terminal is 8-bit clean.
// eslint-disable-next-line no-control-regex
const ESCAPES = /(?:\x1b\[|\x9b)[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b[@-Z\\-_]|[\x00-\x08\x0b-\x1f\x7f]/g;
// eslint-disable-next-line no-control-regex
const NEEDS_WORK = /[\x00-\x08\x0b-\x1f\x7f\x9b]/;

export function stripAnsi(line: string): string {
  // Most lines are plain; the test is cheaper than a replace that finds nothing.
  if (!NEEDS_WORK.test(line)) return line;
  let s = line;
  const cr = s.lastIndexOf('\r', s.endsWith('\r') ? s.length - 2 : s.length);
  if (cr >= 0) s = s.slice(cr + 1);
  return s.replace(ESCAPES, '');
}

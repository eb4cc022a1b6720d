/**
 * Which log lines count as warnings or errors in the Ranks tree. Only the level markers the
 * backends actually print are matched (Dynamo/Rust `ERROR`, Python logging `ERROR`/`WARNING`,
 * vLLM `ERROR 11-30 …`, TRT-LLM `[E]`/`[W]`, `[TensorRT-LLM][ERROR]`, Python tracebacks and
 * `SomethingError:` lines), so a message that merely mentions "error" does not light up a rank.
 */
export type Severity = 'error' | 'warning';

const ERROR = /(?:^|[\s[(])(?:ERROR|CRITICAL|FATAL)(?:[\s\]:)]|$)|\[E\]\s|\[TensorRT-LLM\]\[ERROR\]|^Traceback \(most recent call last\)|^\s*(?:[A-Za-z_][\w.]*)?(?:Error|Exception):\s|Segmentation fault|core dumped/;
const WARNING = /(?:^|[\s[(])(?:WARN|WARNING)(?:[\s\]:)]|$)|\[W\]\s|\[TensorRT-LLM\]\[WARNING\]/;

// One pass over the line that every warning or error must pass; most lines fail it, so the
// precise patterns above run only on the few candidates (this runs for every line of a flood).
const CANDIDATE = /ERR|WARN|CRIT|FATAL|\[[EW]\]|Traceback|Error:|Exception:|Segmentation|core dumped/;

export function lineSeverity(line: string): Severity | undefined {
  if (!CANDIDATE.test(line)) return undefined;
  if (ERROR.test(line)) return 'error';
  if (WARNING.test(line)) return 'warning';
  return undefined;
}

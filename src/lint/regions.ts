/**
 * Parsing only what the rules can look at (python-analysis.md §5: the parse is most of the cost, and a
 * snapshot file's exits sit in a few of its top-level statements). A cheap scanner cuts the text into
 * top-level statements; the parser then sees, through tree-sitter's `includedRanges`, only those a
 * finding can depend on:
 *   - every statement naming an exit (`exit`, `quit`, `SystemExit`, `_exit`, or a local alias of one:
 *     `from sys import exit as leave`, `leave = sys.exit`),
 *     the lifecycle wait, `atexit`, or holding a file-level noqa comment;
 *   - the statement before a module-level one naming an exit (the fix looks for a flush there);
 *   - the leading block (docstring, `__future__`, imports: where the fix adds `import os`);
 *   - every module-level binding a name the rules resolve could come from: any statement other than a
 *     `def`/`class` naming `sys`, `os`, `builtins`, `BaseException`, an alias or attribute root of an
 *     exit, a wait result variable, or a capture call; a `def`/`class` only if its own name is one of
 *     those or it may bind module names (`global`, `:=`).
 * Scope resolution, branch placement and handlers never look outside these, so the findings are those
 * of a full parse (checked over the corpus by test/unit/lint/regions.test.ts). When the cut may be
 * wrong (the partial tree has an error, or a statement crosses a range) or saves little, the caller
 * parses the whole text instead.
 */
import type { Node, ParseState, Parser, Range, Tree } from 'web-tree-sitter';

/**
 * One pass finds every trigger: exit words (group 1), the lifecycle wait (2), words that keep any
 * statement (3), capture calls (4), module-alias imports (5: the alias).
 */
const TRIGGERS =
  /(?<!\w)(exit|quit|SystemExit|_exit)\b|(wait_for_restore|run_lifecycle)|(atexit|\bglobal\b|:=|^[ \t]*#\s*dynamo-snapshot:)|(capture|checkpoint|criu_dump|dump_snapshot|take_snapshot)|(?<![\w.])(?:os|sys|builtins)\s+as\s+([A-Za-z_]\w*)/gm;
const ALIAS_AFTER = /\s+as\s+([A-Za-z_]\w*)/y;
const ROOT_BEFORE = /(?<![\w.])([A-Za-z_]\w*)(?:\s*\.\s*[A-Za-z_]\w*)*\s*\.\s*$/;
/** `leave = sys.exit` / `leave = exit`: the text before an exit word on its line names an alias. */
const ASSIGN_ALIAS_BEFORE = /(?<![\w.])([A-Za-z_]\w*)\s*(?::[^=\n]*)?(?<![=!<>])=\s*(?:[A-Za-z_]\w*\s*\.\s*)*$/;
const WAIT_VAR_BEFORE = /(?<![\w.])([A-Za-z_]\w*)\s*(?::[^=\n]*)?(?:=|:=)\s*(?:await\s+)?[\w.\s]*$/;
/** Files with these take the whole-text path (SNAP003 reads every module-level import). */
const WHOLE_FILE = /RESTORE_STANDBY/;
const BASE_NAMES = ['sys', 'os', 'builtins', 'BaseException', 'exit', 'quit', 'SystemExit', '_exit'];

/** Partial parses are tried only when they keep at most this share of the text. */
export const MAX_KEPT_SHARE = 0.5;

interface Segment {
  /** A line start. */
  start: number;
  row: number;
  /** `def`/`class` name, or undefined for any other statement. */
  defName: string | undefined;
  isClass: boolean;
  /** For a member of a cut class: the index of the class's own segment (header and first member). */
  header?: number;
}

function segment(text: string, start: number, at: number, row: number, header?: number): Segment {
  DEF_HEAD.lastIndex = at;
  const d = DEF_HEAD.exec(text);
  return { start, row, defName: d?.[2], isClass: d?.[1] === 'class', header };
}

const DEF_HEAD = /(?:@[^\n]*\n(?:[ \t]*(?:#[^\n]*)?\r?\n)*[ \t]*)*(?:async[ \t]+)?(def|class)[ \t]+([A-Za-z_]\w*)/y;
/** Classes at least this long are cut at their members (the methods without exits are skipped). */
const CLASS_CUT_MIN = 2000;
const LEADING = /(?:import|from)[ \t]|[rRuUbBfF]{0,2}["']/y;
const CONTINUATION = /(?:else|elif|except|finally)\b/y;

function isSpace(c: number): boolean {
  return c === 32 || c === 9 || c === 12 || c === 13 || c === 10;
}

/**
 * Offsets (and rows) where top-level statements start: a line at column 0 that is not blank, not a
 * comment, not inside brackets, a string or a backslash continuation, and not an `else:`-like clause
 * or a `def` under its decorator.
 */
export function topLevelStarts(text: string): { starts: number[]; rows: number[] } {
  return statementStarts(text, 0, text.length, 0, '');
}

/**
 * The same between `from` and `to` (a line start, at `row`) for statements indented by exactly
 * `indent` (a class body's members). `bodyIndent` reports the first deeper indentation seen.
 */
export function statementStarts(
  text: string,
  from: number,
  to: number,
  row: number,
  indent: string,
  out: { bodyIndent?: string; stopAtBody?: boolean } = {},
): { starts: number[]; rows: number[] } {
  const starts: number[] = [];
  const rows: number[] = [];
  let depth = 0;
  let quote = 0; // 0, or the quote char code
  let triple = false;
  let lineStart = true;
  let decorated = false;
  const n = to;
  for (let i = from; i < n; i++) {
    let c = text.charCodeAt(i);
    if (lineStart) {
      lineStart = false;
      if (quote === 0 && depth === 0) {
        let at = i;
        if (indent === '' || text.startsWith(indent, i)) at += indent.length;
        else at = -1;
        const d = at >= 0 ? text.charCodeAt(at) : 0;
        if (at >= 0 && !isSpace(d) && d !== 35 /* # */ && at < n) {
          CONTINUATION.lastIndex = at;
          if (!CONTINUATION.test(text)) {
            if (!decorated) {
              starts.push(at);
              rows.push(row);
            }
            decorated = d === 64; /* @ */
          }
        } else if (out.bodyIndent === undefined && (c === 32 || c === 9)) {
          // A deeper line that is not blank or a comment: the first one gives the body's indentation.
          let j = i;
          while (j < n && (text.charCodeAt(j) === 32 || text.charCodeAt(j) === 9)) j++;
          const e = text.charCodeAt(j);
          if (j < n && e !== 35 && e !== 10 && e !== 13 && e !== 12) {
            out.bodyIndent = text.slice(i, j);
            if (out.stopAtBody) break;
          }
        }
      }
      c = text.charCodeAt(i);
    }
    if (c === 10) {
      row++;
      lineStart = true;
      if (quote !== 0 && !triple) quote = 0; // an unterminated one-line string ends here (a syntax error)
      continue;
    }
    if (quote !== 0) {
      if (c === 92 /* \ */) {
        if (text.charCodeAt(i + 1) === 10) {
          row++;
        }
        i++;
      } else if (c === quote) {
        if (!triple) quote = 0;
        else if (text.charCodeAt(i + 1) === quote && text.charCodeAt(i + 2) === quote) {
          quote = 0;
          i += 2;
        }
      }
      continue;
    }
    switch (c) {
      case 35: {
        // A comment: skip to the end of the line.
        const nl = text.indexOf('\n', i);
        i = (nl < 0 ? n : nl) - 1;
        break;
      }
      case 34:
      case 39:
        quote = c;
        triple = text.charCodeAt(i + 1) === c && text.charCodeAt(i + 2) === c;
        if (triple) i += 2;
        break;
      case 40:
      case 91:
      case 123:
        depth++;
        break;
      case 41:
      case 93:
      case 125:
        if (depth > 0) depth--;
        break;
      case 92:
        // A backslash continuation: the next line belongs to this statement.
        if (text.charCodeAt(i + 1) === 10) {
          row++;
          i++;
        } else if (text.charCodeAt(i + 1) === 13 && text.charCodeAt(i + 2) === 10) {
          row++;
          i += 2;
        }
        break;
    }
  }
  return { starts, rows };
}

function segmentAt(starts: number[], offset: number): number {
  let lo = 0;
  let hi = starts.length - 1;
  if (hi < 0 || offset < starts[0]!) return 0;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (starts[mid]! <= offset) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

function wordRegExp(words: Iterable<string>): RegExp {
  return new RegExp(`(?<!\\w)(?:${[...new Set(words)].join('|')})(?!\\w)`, 'g');
}

function forEachMatch(re: RegExp, text: string, f: (m: RegExpExecArray) => void): void {
  re.lastIndex = 0;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    if (m[0].length === 0) re.lastIndex++;
    f(m);
  }
}

/**
 * The ranges to parse, or undefined when the whole text should be parsed (the cut keeps too much, or
 * a rule needs every statement).
 */
export function lintRanges(text: string, maxShare = MAX_KEPT_SHARE): Range[] | undefined {
  if (WHOLE_FILE.test(text)) return undefined;
  const { starts, rows } = topLevelStarts(text);
  if (starts.length < 2) return undefined;
  // Everything before the first statement (shebang, comments) goes with it.
  starts[0] = 0;
  rows[0] = 0;
  const segs: Segment[] = [];
  for (let k = 0; k < starts.length; k++) {
    const seg = segment(text, starts[k]!, starts[k]!, rows[k]!);
    const own = segs.push(seg) - 1;
    const segEnd = k + 1 < starts.length ? starts[k + 1]! : text.length;
    if (!seg.isClass || segEnd - seg.start < CLASS_CUT_MIN) continue;
    // A long class: its members become segments of their own (the first stays with the header).
    const body: { bodyIndent?: string; stopAtBody?: boolean } = { stopAtBody: true };
    statementStarts(text, seg.start, segEnd, seg.row, '', body);
    if (!body.bodyIndent) continue;
    const members = statementStarts(text, seg.start, segEnd, seg.row, body.bodyIndent);
    for (let q = 1; q < members.starts.length; q++) {
      const at = members.starts[q]!;
      segs.push(segment(text, at - body.bodyIndent.length, at, members.rows[q]!, own));
    }
  }
  starts.length = 0;
  for (const s of segs) starts.push(s.start);
  const keep = new Uint8Array(segs.length);
  const end = (i: number): number => (i + 1 < segs.length ? segs[i + 1]!.start : text.length);

  // The leading block, up to and including the first statement that is not a docstring or an import.
  for (let i = 0; i < segs.length; i++) {
    keep[i] = 1;
    let s = segs[i]!.start;
    // Segment 0 may begin with comments and blank lines.
    if (i === 0) s = skipComments(text, s);
    LEADING.lastIndex = s;
    if (!LEADING.test(text)) break;
  }

  const names = new Set(BASE_NAMES);
  const exitNames = new Set(['exit', 'quit', 'SystemExit', '_exit']);
  const exitHits: number[] = [];
  forEachMatch(TRIGGERS, text, (m) => {
    const i = segmentAt(starts, m.index);
    if (m[1] !== undefined) {
      exitHits.push(i);
      ALIAS_AFTER.lastIndex = m.index + m[0].length;
      const alias = ALIAS_AFTER.exec(text)?.[1];
      if (alias) {
        names.add(alias);
        exitNames.add(alias);
      }
      const lineStart = text.lastIndexOf('\n', m.index) + 1;
      const assigned = ASSIGN_ALIAS_BEFORE.exec(text.slice(Math.max(lineStart, m.index - 200), m.index))?.[1];
      if (assigned) {
        names.add(assigned);
        exitNames.add(assigned);
      }
      if (text.charCodeAt(m.index - 1) === 46 /* . */ || /\s/.test(text[m.index - 1] ?? '')) {
        const root = ROOT_BEFORE.exec(text.slice(Math.max(segs[i]!.start, m.index - 200), m.index))?.[1];
        if (root) names.add(root);
      }
    } else if (m[2] !== undefined) {
      keep[i] = 1;
      const lineStart = text.lastIndexOf('\n', m.index) + 1;
      const v = WAIT_VAR_BEFORE.exec(text.slice(Math.max(lineStart, m.index - 200), m.index))?.[1];
      if (v) names.add(v);
    } else if (m[3] !== undefined) keep[i] = 1;
    else if (m[4] !== undefined) {
      if (segs[i]!.defName === undefined) keep[i] = 1;
    } else if (m[5] !== undefined) names.add(m[5]);
  });
  const mark = (i: number): void => {
    keep[i] = 1;
    // At module level, the statement before (the fix looks for a flush there).
    if (segs[i]!.defName === undefined && i > 0) keep[i - 1] = 1;
  };
  for (const i of exitHits) mark(i);
  // Uses of `from sys import exit as leave` aliases are exits too.
  if (exitNames.size > 4) forEachMatch(wordRegExp([...exitNames].slice(4)), text, (m) => mark(segmentAt(starts, m.index)));
  // Module-level bindings of the names the rules resolve.
  forEachMatch(wordRegExp(names), text, (m) => {
    const i = segmentAt(starts, m.index);
    const def = segs[i]!.defName;
    if (def === undefined || names.has(def)) keep[i] = 1;
  });
  // A kept member needs its class around it.
  for (let i = 0; i < segs.length; i++) if (keep[i] && segs[i]!.header !== undefined) keep[segs[i]!.header!] = 1;

  const ranges: Range[] = [];
  let kept = 0;
  for (let i = 0; i < segs.length; i++) {
    if (!keep[i]) continue;
    let j = i;
    while (j + 1 < segs.length && keep[j + 1]) j++;
    const startIndex = segs[i]!.start;
    const endIndex = end(j);
    kept += endIndex - startIndex;
    ranges.push({
      startIndex,
      endIndex,
      startPosition: { row: segs[i]!.row, column: 0 },
      endPosition: j + 1 < segs.length ? { row: segs[j + 1]!.row, column: 0 } : endOf(text),
    });
    i = j;
  }
  if (kept > maxShare * text.length) return undefined;
  return ranges;
}

function skipComments(text: string, i: number): number {
  const re = /(?:[ \t\f]*(?:#[^\n]*)?\r?\n)*/y;
  re.lastIndex = i;
  re.exec(text);
  return re.lastIndex;
}

function endOf(text: string): { row: number; column: number } {
  let row = 0;
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) row++;
  return { row, column: text.length - (text.lastIndexOf('\n') + 1) };
}

/**
 * True when the partial tree is trustworthy: no error, and no statement crosses a range (a top-level
 * one, or a member of a class that was cut).
 */
export function partialTreeSound(tree: Tree, ranges: readonly Range[]): boolean {
  const root = tree.rootNode;
  if (root.hasError) return false;
  let r = 0;
  const within = (c: Node): boolean => {
    while (r < ranges.length && ranges[r]!.endIndex <= c.startIndex) r++;
    const range = ranges[r];
    return !!range && c.startIndex >= range.startIndex && c.endIndex <= range.endIndex;
  };
  for (let i = 0; i < root.childCount; i++) {
    const c = root.child(i)!;
    if (within(c)) continue;
    const cls = c.type === 'decorated_definition' ? c.childForFieldName('definition') : c;
    const body = cls?.type === 'class_definition' ? cls.childForFieldName('body') : null;
    if (!body) return false;
    r = 0;
    for (let j = 0; j < body.childCount; j++) if (!within(body.child(j)!)) return false;
  }
  return true;
}

/**
 * Parses what the rules need: only the statements that matter when that is sound and saves enough,
 * else the whole text. `partial` tells the caller the tree cannot be edited incrementally.
 */
export function parseForLint(
  parser: Parser,
  text: string,
  opts: { partial?: boolean; oldTree?: Tree | null; progressCallback?: (s: ParseState) => void } = {},
): { tree: Tree | null; partial: boolean } {
  const progress = opts.progressCallback ? { progressCallback: opts.progressCallback } : {};
  const ranges = opts.partial === false || opts.oldTree ? undefined : lintRanges(text);
  if (ranges) {
    const tree = parser.parse(text, null, { includedRanges: ranges, ...progress });
    if (tree && partialTreeSound(tree, ranges)) return { tree, partial: true };
    tree?.delete();
    // A cancelled parse would resume on the next call; start the whole-text one afresh.
    parser.reset();
    if (!tree) return { tree: null, partial: true };
  }
  return { tree: parser.parse(text, opts.oldTree ?? null, progress), partial: false };
}

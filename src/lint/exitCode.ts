/**
 * Python's exit-status semantics for `sys.exit(x)` / `raise SystemExit(x)` (python-analysis.md §6.6):
 * no argument or `None` → 0; an int → that int; a bool → 1/0; a string → printed to stderr, status 1;
 * any other value → status from `int`, else printed with status 1. Several arguments, keywords or
 * splats have no faithful `os._exit` form, so they get no fix.
 */
import type { Node } from 'web-tree-sitter';

export interface ExitStatus {
  /** Text of the `os._exit` argument. */
  code: string;
  /** A message Python would print to stderr before exiting (source text of the expression). */
  message?: string;
  /** True when the rewrite keeps the status exactly. */
  exact: boolean;
}

const NO_FIX = new Set(['keyword_argument', 'list_splat', 'dictionary_splat', 'parenthesized_list_splat']);

function isIntLiteral(n: Node): boolean {
  if (n.type === 'integer') return true;
  if (n.type === 'unary_operator') {
    const arg = n.childForFieldName('argument');
    return !!arg && arg.type === 'integer';
  }
  return false;
}

export function exitStatus(args: Node | null): ExitStatus | undefined {
  if (!args) return { code: '0', exact: true };
  if (args.type !== 'argument_list') return undefined; // `exit(x for x in y)`
  const list = args.namedChildren.filter((c) => c.type !== 'comment');
  if (list.length === 0) return { code: '0', exact: true };
  if (list.length > 1 || list.some((c) => NO_FIX.has(c.type))) return undefined;
  const arg = list[0]!;
  if (arg.type === 'none') return { code: '0', exact: true };
  if (isIntLiteral(arg)) return { code: arg.text, exact: true };
  if (arg.type === 'true') return { code: '1', exact: true };
  if (arg.type === 'false') return { code: '0', exact: true };
  if (arg.type === 'string' || arg.type === 'concatenated_string') return { code: '1', message: arg.text, exact: false };
  return { code: arg.text, exact: false };
}

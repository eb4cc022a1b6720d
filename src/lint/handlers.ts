/**
 * What surrounds an exit inside its function (python-analysis.md §6.5): handlers that would catch the
 * `SystemExit` (bare `except:`, `BaseException`, `SystemExit`, in a tuple, `except*`) and cleanup that
 * `os._exit` skips (`finally`, `with`, `atexit`). A handler that only re-raises does not count.
 */
import type { Node } from 'web-tree-sitter';
import type { Resolver } from './scopes';

export interface Surroundings {
  /** `except` clauses that would intercept the SystemExit. */
  catching: Node[];
  /** `finally` clauses and `with` statements whose cleanup os._exit skips. */
  cleanup: Node[];
}

const STOP = new Set(['function_definition', 'lambda', 'class_definition', 'module']);
const CATCHERS = new Set(['builtins.SystemExit', 'builtins.BaseException']);

function catchesSystemExit(clause: Node, resolver: Resolver): boolean {
  let value = clause.childForFieldName('value');
  const block = clause.namedChildren.find((c) => c.type === 'block');
  // `except SystemExit: raise` hands it on unchanged.
  const only = block?.namedChildCount === 1 ? block.namedChild(0) : null;
  if (only?.type === 'raise_statement' && only.namedChildCount === 0) return false;
  if (!value) return true; // bare `except:`
  if (value.type === 'as_pattern') value = value.namedChild(0);
  if (!value) return false;
  const types = value.type === 'tuple' || value.type === 'parenthesized_expression' ? value.namedChildren : [value];
  return types.some((t) => CATCHERS.has(resolver.resolve(t) ?? ''));
}

export function surroundings(stmt: Node, resolver: Resolver): Surroundings {
  const out: Surroundings = { catching: [], cleanup: [] };
  let child: Node = stmt;
  for (let p = stmt.parent; p && !STOP.has(p.type); child = p, p = p.parent) {
    if (p.type === 'try_statement' && p.childForFieldName('body')?.id === child.id) {
      for (const c of p.namedChildren) {
        if (c.type === 'except_clause' && catchesSystemExit(c, resolver)) out.catching.push(c);
        else if (c.type === 'finally_clause') out.cleanup.push(c);
      }
    } else if (p.type === 'try_statement' && child.type !== 'finally_clause') {
      // Inside an except/else clause: the finally still runs on unwinding.
      for (const c of p.namedChildren) if (c.type === 'finally_clause') out.cleanup.push(c);
    } else if (p.type === 'with_statement' && p.childForFieldName('body')?.id === child.id) {
      out.cleanup.push(p);
    }
  }
  return out;
}

/**
 * Finds process exits with a text-anchored pass (python-analysis.md §5: 4–5 % of a parse, where a
 * full tree walk costs 70–90 %): a regex finds `exit`/`quit`/`SystemExit`/`_exit` and the local names
 * `from sys import exit as leave` introduces, then the tree node at each hit is resolved by scope.
 */
import type { Node, Tree } from 'web-tree-sitter';
import type { Resolver } from './scopes';

export type ExitKind = 'raise' | 'call' | 'os_exit';

export interface ExitSite {
  kind: ExitKind;
  /** The raise statement, or the call node. */
  node: Node;
  /** The statement that holds it (raise_statement or expression_statement), when it is one on its own. */
  statement: Node | null;
  /** The callee (`sys.exit`) or raised expression (`SystemExit`) as written. */
  callee: Node;
  /** Call arguments, if any (`argument_list`). */
  args: Node | null;
  /** `raise … from <cause>`. */
  cause: Node | null;
  /** Resolved origin, e.g. `sys.exit`, `builtins.SystemExit`. */
  origin: string;
}

const WORDS = ['exit', 'quit', 'SystemExit', '_exit'];
const CALL_EXITS = new Set(['sys.exit', 'builtins.exit', 'builtins.quit']);
const EXIT_MODULES = new Set(['sys', 'builtins', 'os']);

function wordRegExp(words: Iterable<string>): RegExp {
  const alt = [...new Set(words)].map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|');
  // `(?<!\\w)` keeps `os._exit` from matching `exit` while `sys.exit` and `os._exit` both match.
  return new RegExp(`(?<!\\w)(?:${alt})\\b`, 'g');
}

const BASE_RE = wordRegExp(WORDS);

/** Local aliases introduced by `from sys|builtins|os import exit as leave` or `leave = sys.exit`. */
function aliasesAt(hit: Node): string | undefined {
  const expr = hit.parent?.type === 'attribute' && hit.parent.childForFieldName('attribute')?.id === hit.id ? hit.parent : hit;
  const assign = expr.parent;
  if (assign?.type === 'assignment' && assign.childForFieldName('right')?.id === expr.id) {
    const left = assign.childForFieldName('left');
    return left?.type === 'identifier' ? left.text : undefined;
  }
  const aliased = hit.parent?.type === 'dotted_name' ? hit.parent.parent : null;
  if (aliased?.type !== 'aliased_import' || aliased.parent?.type !== 'import_from_statement') return undefined;
  const mod = aliased.parent.childForFieldName('module_name')?.text;
  if (!mod || !EXIT_MODULES.has(mod)) return undefined;
  return aliased.childForFieldName('alias')?.text;
}

/**
 * Deeper than this, code cannot run (CPython refuses more than 200 nested parentheses or 100
 * indentation levels), and walking up a tree-sitter node's parents costs O(depth) per step: skip it.
 */
export const MAX_DEPTH = 1000;

function tooDeep(tree: Tree, index: number): boolean {
  const cursor = tree.walk();
  try {
    let depth = 0;
    while (cursor.gotoFirstChildForIndex(index)) if (++depth > MAX_DEPTH) return true;
    return false;
  } finally {
    cursor.delete();
  }
}

function identifiersMatching(tree: Tree, text: string, re: RegExp): Node[] {
  const out: Node[] = [];
  re.lastIndex = 0;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    if (m[0].length === 0) {
      re.lastIndex++;
      continue;
    }
    const node = tree.rootNode.descendantForIndex(m.index, m.index + m[0].length);
    if (node?.type === 'identifier' && node.startIndex === m.index && !tooDeep(tree, m.index)) out.push(node);
  }
  return out;
}

function classifySite(id: Node, resolver: Resolver): ExitSite | undefined {
  let expr = id;
  const parent = id.parent;
  if (parent?.type === 'attribute' && parent.childForFieldName('attribute')?.id === id.id) expr = parent;
  else if (parent?.type === 'attribute') return undefined; // `exit.something`
  const up = expr.parent;
  if (!up) return undefined;
  if (up.type === 'call' && up.childForFieldName('function')?.id === expr.id) {
    const origin = resolver.resolve(expr);
    if (!origin) return undefined;
    const raise = up.parent?.type === 'raise_statement' && up.parent.namedChild(0)?.id === up.id ? up.parent : null;
    const args = up.childForFieldName('arguments');
    if (raise && origin === 'builtins.SystemExit') {
      return { kind: 'raise', node: raise, statement: raise, callee: expr, args, cause: raise.childForFieldName('cause'), origin };
    }
    if (!CALL_EXITS.has(origin) && origin !== 'os._exit') return undefined;
    const statement = up.parent?.type === 'expression_statement' && up.parent.namedChildCount === 1 ? up.parent : null;
    return { kind: origin === 'os._exit' ? 'os_exit' : 'call', node: up, statement, callee: expr, args, cause: null, origin };
  }
  if (up.type === 'raise_statement' && up.namedChild(0)?.id === expr.id) {
    const origin = resolver.resolve(expr);
    if (origin !== 'builtins.SystemExit') return undefined;
    return { kind: 'raise', node: up, statement: up, callee: expr, args: null, cause: up.childForFieldName('cause'), origin };
  }
  return undefined;
}

/** Every exit in the file, in text order. */
export function findExits(tree: Tree, text: string, resolver: Resolver): ExitSite[] {
  const hits = identifiersMatching(tree, text, BASE_RE);
  const aliases = new Set<string>();
  for (const h of hits) {
    const a = aliasesAt(h);
    // Error recovery can hand back an empty or odd alias; only identifiers make a safe regex.
    if (a && /^[A-Za-z_][A-Za-z0-9_]*$/.test(a) && !WORDS.includes(a)) aliases.add(a);
  }
  if (aliases.size > 0) hits.push(...identifiersMatching(tree, text, wordRegExp(aliases)));
  const seen = new Set<number>();
  const out: ExitSite[] = [];
  for (const id of hits) {
    const site = classifySite(id, resolver);
    if (site && !seen.has(site.node.id)) {
      seen.add(site.node.id);
      out.push(site);
    }
  }
  return out.sort((a, b) => a.node.startIndex - b.node.startIndex);
}

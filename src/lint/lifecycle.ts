/**
 * Where an exit sits relative to the snapshot lifecycle wait (dynamo-snapshot.md §5.1: the wait
 * returns False after `snapshot-complete`, True after `restore-complete`):
 *   - `captured`: the branch taken when the wait reports a captured snapshot
 *     (`if not await c.wait_for_restore():`, `restored = ...` then `if not restored:` / `else:`, code
 *     after `if restored: return`, or code after a capture call in the same block);
 *   - `restored`: the branch taken on restore;
 *   - `undefined`: neither is known.
 */
import type { Node } from 'web-tree-sitter';

export type Branch = 'captured' | 'restored';

/** The lifecycle waits whose result means "restored" (True) or "captured" (False). */
export const WAIT_NAMES = ['wait_for_restore', 'run_lifecycle'];
const WAIT_RE = new RegExp(`(?:^|\\.)(?:${WAIT_NAMES.join('|')})$`);
/** Calls that take the snapshot in-process; an exit after one in the same block is on the capture path. */
const CAPTURE_CALL_RE = /(?:^|[._])(?:capture|checkpoint|criu_dump|dump_snapshot|take_snapshot)(?:_snapshot)?$/;

const STATEMENT_END = new Set(['return_statement', 'raise_statement', 'continue_statement', 'break_statement']);
const FUNCTIONS = new Set(['function_definition', 'lambda', 'class_definition', 'module']);

function opposite(b: Branch | undefined): Branch | undefined {
  return b === 'captured' ? 'restored' : b === 'restored' ? 'captured' : undefined;
}

function unwrap(n: Node | null): Node | null {
  for (;;) {
    if (n && (n.type === 'parenthesized_expression' || n.type === 'await') && n.namedChildCount === 1) n = n.namedChild(0);
    else if (n?.type === 'named_expression') n = n.childForFieldName('value');
    else return n;
  }
}

function calleeName(call: Node): string {
  return (call.childForFieldName('function')?.text ?? '').replace(/\s+/g, '');
}

export function isWaitCall(n: Node | null): boolean {
  const u = unwrap(n);
  return !!u && u.type === 'call' && WAIT_RE.test(calleeName(u));
}

/** Names assigned from the lifecycle wait in `fn` (`restored = await c.wait_for_restore()`). */
function waitVariables(fn: Node, cache: Map<number, Set<string>>): Set<string> {
  const hit = cache.get(fn.id);
  if (hit) return hit;
  const names = new Set<string>();
  const body = fn.type === 'function_definition' || fn.type === 'lambda' || fn.type === 'class_definition' ? fn.childForFieldName('body') : fn;
  if (body && /wait_for_restore|run_lifecycle/.test(body.text)) {
    for (const a of body.descendantsOfType(['assignment', 'named_expression'])) {
      const left = a.childForFieldName(a.type === 'assignment' ? 'left' : 'name');
      const right = a.childForFieldName(a.type === 'assignment' ? 'right' : 'value');
      if (left?.type === 'identifier' && isWaitCall(right)) names.add(left.text);
    }
  }
  cache.set(fn.id, names);
  return names;
}

/**
 * The branch taken when `cond` evaluates to `truth` (`captured` / `restored`), or undefined when it
 * does not tell. `and`/`or` combine: `if not ok and x:` runs only when `not ok` holds, so on the
 * capture path; its `else` may run either way.
 */
function classify(cond: Node | null, vars: Set<string>, truth = true): Branch | undefined {
  const c = unwrap(cond);
  if (!c) return undefined;
  if (c.type === 'not_operator') return classify(c.childForFieldName('argument'), vars, !truth);
  if (c.type === 'boolean_operator') {
    const op = c.childForFieldName('operator')?.type;
    const l = classify(c.childForFieldName('left'), vars, truth);
    const r = classify(c.childForFieldName('right'), vars, truth);
    // `A and B` true (or `A or B` false): both sides hold, either one decides (unless they disagree).
    if ((op === 'and') === truth) return l && r && l !== r ? undefined : l ?? r;
    // `A and B` false (or `A or B` true): one side holds, only an agreement decides.
    return l === r ? l : undefined;
  }
  const b = base(c, vars);
  return truth ? b : opposite(b);
}

/** `captured` when `c` being true means a capture, `restored` when it means a restore. */
function base(c: Node, vars: Set<string>): Branch | undefined {
  if (isWaitCall(c)) return 'restored';
  if (c.type === 'identifier' && vars.has(c.text)) return 'restored';
  if (c.type === 'comparison_operator' && c.namedChildCount === 2) {
    const [l, r] = [unwrap(c.namedChild(0)), unwrap(c.namedChild(1))];
    const op = c.children.filter((x) => !x.isNamed).map((x) => x.type).join(' ');
    const lhs = l && (isWaitCall(l) || (l.type === 'identifier' && vars.has(l.text)));
    if (!lhs || !r || (r.type !== 'true' && r.type !== 'false')) return undefined;
    const positive = op === 'is' || op === '==';
    const negative = op === 'is not' || op === '!=';
    if (!positive && !negative) return undefined;
    return (r.type === 'true') === positive ? 'restored' : 'captured';
  }
  return undefined;
}

const EXIT_CALL = /(?:^|\.)(?:_exit|exit|quit)$/;

/** The block always leaves: it ends in return/raise/continue/break or an exit call. */
function terminates(block: Node | null): boolean {
  let last = block?.lastNamedChild ?? null;
  while (last?.type === 'comment') last = last.previousNamedSibling;
  if (!last) return false;
  if (STATEMENT_END.has(last.type)) return true;
  const e = last.type === 'expression_statement' ? unwrap(last.namedChild(0)) : null;
  return !!e && e.type === 'call' && EXIT_CALL.test(calleeName(e));
}

function isCaptureCallStatement(s: Node): boolean {
  if (s.type !== 'expression_statement') return false;
  const e = unwrap(s.namedChild(0));
  return !!e && e.type === 'call' && CAPTURE_CALL_RE.test(calleeName(e)) && !WAIT_RE.test(calleeName(e));
}

/** Preceding siblings decide: after `if restored: return`, after a capture call. */
function fromSiblings(stmt: Node, vars: Set<string>): Branch | undefined {
  for (let p = stmt.previousNamedSibling; p; p = p.previousNamedSibling) {
    if (p.type === 'if_statement' && !p.childForFieldName('alternative') && terminates(p.childForFieldName('consequence'))) {
      // The code after `if <cond>: return` runs when <cond> is false.
      const b = classify(p.childForFieldName('condition'), vars, false);
      if (b) return b;
    }
    if (isCaptureCallStatement(p)) return 'captured';
  }
  return undefined;
}

export interface Placement {
  branch: Branch;
  /**
   * True when an `if`/`else` on the wait's result holds the node; false when only control flow
   * places it (after `if restored: return`, after a capture call).
   */
  direct: boolean;
}

/** The branch of the snapshot lifecycle `node` runs on, looking no further than its function. */
export function lifecycleBranch(node: Node, cache: Map<number, Set<string>>): Placement | undefined {
  let fn: Node | null = node.parent;
  let top: Node = node;
  while (fn && !FUNCTIONS.has(fn.type)) {
    top = fn;
    fn = fn.parent;
  }
  // Error recovery can make the root an ERROR node instead of `module`: use it as the module.
  const vars = waitVariables(fn ?? top, cache);
  let child: Node = node;
  for (let p = node.parent; p && !FUNCTIONS.has(p.type); child = p, p = p.parent) {
    let b: Branch | undefined;
    if (p.type === 'block') {
      b = fromSiblings(child, vars);
      if (b) return { branch: b, direct: false };
      continue;
    }
    if (p.type === 'if_statement' && p.childForFieldName('consequence')?.id === child.id) {
      b = classify(p.childForFieldName('condition'), vars);
    } else if (p.type === 'else_clause' && p.parent?.type === 'if_statement') {
      b = classify(p.parent.childForFieldName('condition'), vars, false);
    } else if (p.type === 'elif_clause' && p.childForFieldName('consequence')?.id === child.id) {
      b = classify(p.childForFieldName('condition'), vars) ?? classify(p.parent?.childForFieldName('condition') ?? null, vars, false);
    }
    if (b) return { branch: b, direct: true };
  }
  return undefined;
}

/** True when `fn`'s body calls the lifecycle wait or a capture call. */
export function callsLifecycle(fn: Node): boolean {
  const body = fn.childForFieldName('body');
  if (!body) return false;
  return /\b(?:wait_for_restore|run_lifecycle)\s*\(/.test(body.text) || body.descendantsOfType('expression_statement').some(isCaptureCallStatement);
}

/**
 * Python name resolution, just enough to tell `sys.exit` from a local `exit` (python-analysis.md §6.3):
 * scopes (module, function, lambda, class body, comprehension), bindings with their offsets, Python's
 * LEGB lookup with class bodies skipped from nested functions, `global`/`nonlocal`, and "last binding
 * before the use" without flow analysis. Tables are built lazily, only for scopes an exit sits in.
 */
import type { Node } from 'web-tree-sitter';

/** What a binding refers to: a dotted origin (`sys`, `sys.exit`, `os._exit`) or `null` for anything else. */
type Origin = string | null;

interface Binding {
  offset: number;
  origin: Origin;
  /** `leave = sys.exit`: the right-hand side, resolved on first use (then `origin` holds it). */
  value?: Node;
}

/** What an assignment alias may stand for; anything else assigned is "other". */
const ALIASABLE = new Set(['sys.exit', 'builtins.exit', 'builtins.quit', 'builtins.SystemExit', 'os._exit']);

interface ScopeInfo {
  node: Node;
  bindings: Map<string, Binding[]>;
  globals: Set<string>;
  nonlocals: Set<string>;
}

const FUNCTION_SCOPES = new Set(['function_definition', 'lambda']);
const COMPREHENSIONS = new Set(['list_comprehension', 'set_comprehension', 'dictionary_comprehension', 'generator_expression']);
const SCOPES = new Set(['module', 'class_definition', ...FUNCTION_SCOPES, ...COMPREHENSIONS]);
const PATTERN_CONTAINERS = new Set([
  'pattern_list', 'tuple_pattern', 'list_pattern', 'tuple', 'list', 'parenthesized_expression',
  'list_splat_pattern', 'as_pattern_target', 'expression_list',
]);

/** Names a `from M import *` brings in that matter here (module `__all__`/public names). */
const STAR_EXPORTS: Record<string, string[]> = {
  sys: ['exit'],
  builtins: ['exit', 'quit', 'SystemExit', 'BaseException'],
};

export class Resolver {
  private readonly scopes = new Map<number, ScopeInfo>();
  /** Assignment aliases being resolved (`a = b; b = a` must not loop). */
  private readonly resolving = new Set<Binding>();
  private aliasIndex: Map<string, string[]> | undefined;

  constructor(private readonly root: Node) {}

  /** The scope a node is evaluated in: decorators and a def's name belong to the enclosing scope. */
  scopeOf(node: Node): Node {
    let child: Node = node;
    for (let p = node.parent; p; child = p, p = p.parent) {
      if (!SCOPES.has(p.type)) continue;
      if (p.id === this.root.id || COMPREHENSIONS.has(p.type)) return p;
      const body = p.childForFieldName('body');
      const params = p.childForFieldName('parameters');
      if ((body && body.id === child.id) || (params && params.id === child.id && p.type !== 'class_definition')) return p;
    }
    return this.root;
  }

  /** Origin of an identifier or attribute expression as seen at `expr`; `builtins.X` for unbound names. */
  resolve(expr: Node): Origin {
    if (expr.type === 'identifier') return this.lookup(expr.text, expr);
    if (expr.type === 'attribute') {
      const obj = expr.childForFieldName('object');
      const attr = expr.childForFieldName('attribute');
      if (!obj || !attr) return null;
      const base = this.resolve(obj);
      return base === null ? null : `${base}.${attr.text}`;
    }
    if (expr.type === 'parenthesized_expression' && expr.namedChildCount === 1) return this.resolve(expr.namedChild(0)!);
    return null;
  }

  lookup(name: string, at: Node): Origin {
    const chain: Node[] = [];
    // The root is the module scope even when error recovery made it an ERROR node.
    for (let s: Node | null = this.scopeOf(at); s; s = s.id === this.root.id ? null : this.scopeOf(s)) chain.push(s);
    for (let i = 0; i < chain.length; i++) {
      const scope = chain[i]!;
      // Code in a nested function does not see the enclosing class body's names.
      if (i > 0 && scope.type === 'class_definition') continue;
      const info = this.info(scope);
      if (info.globals.has(name)) return this.pick(this.info(this.root), name, at);
      if (info.nonlocals.has(name)) continue;
      if (info.bindings.has(name)) return this.pick(info, name, at);
    }
    return `builtins.${name}`;
  }

  /** Every local name in the module scope bound to `origin` (e.g. the aliases of module `os`). */
  moduleAliases(origin: string): string[] {
    // Indexed once per file: a fix asks for every finding, and a big module has thousands of names.
    if (!this.aliasIndex) {
      this.aliasIndex = new Map();
      for (const [name, list] of this.info(this.root).bindings) {
        for (const b of list) {
          const o = this.originOf(b);
          if (o === null) continue;
          const names = this.aliasIndex.get(o);
          if (!names) this.aliasIndex.set(o, [name]);
          else if (!names.includes(name)) names.push(name);
        }
      }
    }
    return this.aliasIndex.get(origin) ?? [];
  }

  private pick(info: ScopeInfo, name: string, at: Node): Origin {
    const list = info.bindings.get(name)!;
    let before: Binding | undefined;
    for (const b of list) if (b.offset < at.startIndex) before = b;
    if (before) return this.originOf(before);
    // Only later bindings (a module import below the function using it): trust them when they agree.
    const first = this.originOf(list[0]!);
    return list.every((b) => this.originOf(b) === first) ? first : null;
  }

  /** A binding's origin; an assignment alias resolves its right-hand side where it stands, once. */
  private originOf(b: Binding): Origin {
    if (!b.value) return b.origin;
    if (this.resolving.has(b)) return null;
    this.resolving.add(b);
    try {
      const o = this.resolve(b.value);
      b.origin = o !== null && ALIASABLE.has(o) ? o : null;
    } finally {
      this.resolving.delete(b);
    }
    b.value = undefined;
    return b.origin;
  }

  private info(scope: Node): ScopeInfo {
    let info = this.scopes.get(scope.id);
    if (info) return info;
    info = { node: scope, bindings: new Map(), globals: new Set(), nonlocals: new Set() };
    this.scopes.set(scope.id, info);
    collect(scope, info, scope.id === this.root.id);
    return info;
  }
}

function bind(info: ScopeInfo, name: string, offset: number, origin: Origin, value?: Node): void {
  const b: Binding = value ? { offset, origin, value } : { offset, origin };
  const list = info.bindings.get(name);
  if (list) list.push(b);
  else info.bindings.set(name, [b]);
}

function bindTargets(info: ScopeInfo, target: Node | null): void {
  if (!target) return;
  if (target.type === 'identifier') bind(info, target.text, target.startIndex, null);
  else if (PATTERN_CONTAINERS.has(target.type)) for (const c of target.namedChildren) bindTargets(info, c);
}

function collect(scope: Node, info: ScopeInfo, isRoot: boolean): void {
  const roots: Node[] = [];
  if (COMPREHENSIONS.has(scope.type)) {
    for (const c of scope.namedChildren) if (c.type === 'for_in_clause') bindTargets(info, c.childForFieldName('left'));
    return;
  }
  if (isRoot) roots.push(scope);
  else {
    const params = scope.childForFieldName('parameters');
    if (params) collectParameters(info, params);
    const tparams = scope.childForFieldName('type_parameters');
    if (tparams) for (const id of tparams.descendantsOfType('identifier')) bind(info, id.text, id.startIndex, null);
    const body = scope.childForFieldName('body');
    if (body) roots.push(body);
  }
  const stack = roots.flatMap((r) => r.namedChildren).reverse();
  while (stack.length > 0) {
    const n = stack.pop()!;
    if (isTypeCheckingBlock(n)) {
      // `if TYPE_CHECKING:` imports never run; only its elif/else branches bind at runtime.
      for (const alt of n.childrenForFieldName('alternative')) stack.push(alt);
      continue;
    }
    if (visit(n, info)) continue;
    // Inside an expression only a walrus binds; skip big expressions that have none (a generated
    // 1 MB `a+a+…` line would otherwise be walked node by node).
    if (EXPRESSION_HOLDERS.has(n.type) && !n.text.includes(':=')) continue;
    for (let i = n.namedChildCount - 1; i >= 0; i--) stack.push(n.namedChild(i)!);
  }
}

/** Nodes whose children are expressions (apart from the targets handled by `visit`). */
const EXPRESSION_HOLDERS = new Set(['return_statement', 'binary_operator', 'call', 'argument_list', 'boolean_operator', 'comparison_operator', 'list', 'tuple', 'dictionary', 'set', 'subscript', 'attribute', 'string', 'concatenated_string', 'parenthesized_expression', 'unary_operator', 'not_operator', 'conditional_expression', 'await', 'keyword_argument', 'pair']);

const TYPE_CHECKING = /^(?:typing\.)?TYPE_CHECKING$/;

function isTypeCheckingBlock(n: Node): boolean {
  return n.type === 'if_statement' && TYPE_CHECKING.test(n.childForFieldName('condition')?.text ?? '');
}

function collectParameters(info: ScopeInfo, params: Node): void {
  for (const p of params.namedChildren) {
    if (p.type === 'identifier') bind(info, p.text, p.startIndex, null);
    else {
      const name = p.childForFieldName('name') ?? p.namedChildren.find((c) => c.type === 'identifier') ?? null;
      if (name) bind(info, name.text, name.startIndex, null);
    }
  }
}

/** Records bindings made by `n` in the current scope; returns true when its subtree must not be entered. */
function visit(n: Node, info: ScopeInfo): boolean {
  switch (n.type) {
    case 'function_definition':
    case 'class_definition': {
      const name = n.childForFieldName('name');
      if (name) bind(info, name.text, name.startIndex, null);
      return true;
    }
    case 'lambda':
    case 'list_comprehension':
    case 'set_comprehension':
    case 'dictionary_comprehension':
    case 'generator_expression':
      return true;
    case 'import_statement':
      for (const item of n.childrenForFieldName('name')) {
        if (item.type === 'dotted_name') {
          // `import os.path` binds `os` to the top-level package.
          const first = item.namedChild(0);
          if (first) bind(info, first.text, item.startIndex, first.text);
        } else if (item.type === 'aliased_import') {
          const alias = item.childForFieldName('alias');
          const name = item.childForFieldName('name');
          if (alias && name) bind(info, alias.text, item.startIndex, name.text.replace(/\s+/g, ''));
        }
      }
      return true;
    case 'import_from_statement': {
      const mod = n.childForFieldName('module_name');
      const module = mod && mod.type === 'dotted_name' ? mod.text.replace(/\s+/g, '') : null;
      for (const item of n.childrenForFieldName('name')) {
        if (item.type === 'dotted_name') bind(info, item.text, item.startIndex, module ? `${module}.${item.text}` : null);
        else if (item.type === 'aliased_import') {
          const alias = item.childForFieldName('alias');
          const name = item.childForFieldName('name');
          if (alias && name) bind(info, alias.text, item.startIndex, module ? `${module}.${name.text}` : null);
        }
      }
      if (module && n.namedChildren.some((c) => c.type === 'wildcard_import')) {
        for (const name of STAR_EXPORTS[module] ?? []) bind(info, name, n.startIndex, `${module}.${name}`);
      }
      return true;
    }
    case 'assignment': {
      const left = n.childForFieldName('left');
      const right = n.childForFieldName('right');
      // `leave = sys.exit`: an alias when the right-hand side resolves to an exit.
      if (left?.type === 'identifier' && right && (right.type === 'identifier' || right.type === 'attribute')) {
        bind(info, left.text, left.startIndex, null, right);
        return false;
      }
      bindTargets(info, left);
      return false;
    }
    case 'augmented_assignment':
      bindTargets(info, n.childForFieldName('left'));
      return false;
    case 'for_statement':
      bindTargets(info, n.childForFieldName('left'));
      return false;
    case 'as_pattern_target':
      bindTargets(info, n);
      return true;
    case 'named_expression': {
      const name = n.childForFieldName('name');
      if (name) bind(info, name.text, name.startIndex, null);
      return false;
    }
    case 'global_statement':
      for (const id of n.namedChildren) if (id.type === 'identifier') info.globals.add(id.text);
      return true;
    case 'nonlocal_statement':
      for (const id of n.namedChildren) if (id.type === 'identifier') info.nonlocals.add(id.text);
      return true;
    case 'delete_statement':
      for (const t of n.namedChildren) bindTargets(info, t);
      return true;
    case 'type_alias_statement': {
      const left = n.childForFieldName('left');
      const id = left?.descendantsOfType('identifier')[0];
      if (id) bind(info, id.text, id.startIndex, null);
      return true;
    }
    default:
      return false;
  }
}

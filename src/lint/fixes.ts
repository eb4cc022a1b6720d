/**
 * The "Exit with os._exit" rewrite. In statement position it flushes stdout/stderr first, because
 * `os._exit` skips the interpreter's final flush and a piped `print(...)` announcing the exit would be
 * lost (python-analysis.md §6.7); a message argument is printed to stderr as Python would. In
 * expression position no flush fits, so the rewrite is marked unsafe.
 */
import type { Node } from 'web-tree-sitter';
import type { ExitSite } from './exits';
import { exitStatus } from './exitCode';
import type { Resolver } from './scopes';
import type { Applicability, Fix, ImportNeed, TextEdit } from './types';

export const FIX_TITLE = 'Exit with os._exit';

function rangeOf(n: Node): TextEdit['range'] {
  return {
    start: { line: n.startPosition.row, character: n.startPosition.column },
    end: { line: n.endPosition.row, character: n.endPosition.column },
  };
}

/** How to reach `module` at `at`: an existing name bound to it, or a new import with a free name. */
function moduleName(resolver: Resolver, at: Node, module: 'os' | 'sys'): { name: string; need?: ImportNeed } {
  const candidates = [module, ...resolver.moduleAliases(module)];
  for (const name of candidates) if (resolver.lookup(name, at) === module) return { name };
  for (const name of [module, `_${module}`, `_${module}_module`]) {
    if (resolver.lookup(name, at) === `builtins.${name}`) {
      return { name, need: { module, name } };
    }
  }
  const name = `_${module}_module`;
  return { name, need: { module, name } };
}

function osExit(resolver: Resolver, at: Node): { call: string; need?: ImportNeed } {
  for (const name of resolver.moduleAliases('os._exit')) if (resolver.lookup(name, at) === 'os._exit') return { call: name };
  const os = moduleName(resolver, at, 'os');
  return { call: `${os.name}._exit`, need: os.need };
}

/** True when the statement before already flushes (`sys.stdout.flush()`, `logging.shutdown()`). */
function flushedBefore(stmt: Node): boolean {
  const prev = stmt.previousNamedSibling;
  return !!prev && /\.flush\(\s*\)|logging\.shutdown\(\s*\)/.test(prev.text);
}

export interface FixContext {
  text: string;
  eol: string;
  resolver: Resolver;
  /** Handlers, cleanup or an atexit hook make the rewrite change more than teardown. */
  changesMoreThanTeardown: boolean;
}

export function buildFix(site: ExitSite, ctx: FixContext): Fix | undefined {
  const status = exitStatus(site.args);
  if (!status) return undefined;
  let applicability: Applicability = status.exact && !ctx.changesMoreThanTeardown ? 'safe' : 'unsafe';
  // `from <cause>` is dropped; evaluating anything but a name or None could have side effects.
  if (site.cause && site.cause.type !== 'identifier' && site.cause.type !== 'none') applicability = 'unsafe';
  const imports: ImportNeed[] = [];
  const exit = osExit(ctx.resolver, site.node);
  if (exit.need) imports.push(exit.need);
  const call = `${exit.call}(${status.code})`;

  const stmt = site.statement;
  if (!stmt) {
    // Inside an expression: no room for a flush or a message.
    if (status.message) return undefined;
    return { title: FIX_TITLE, applicability: 'unsafe', edit: { range: rangeOf(site.node), newText: call }, imports };
  }
  const parts: string[] = [];
  const needsFlush = !flushedBefore(stmt);
  if (status.message || needsFlush) {
    const sys = moduleName(ctx.resolver, site.node, 'sys');
    if (sys.need) imports.push(sys.need);
    if (status.message) parts.push(`print(${status.message}, file=${sys.name}.stderr)`);
    if (needsFlush || status.message) parts.push(`${sys.name}.stdout.flush(); ${sys.name}.stderr.flush()`);
  }
  parts.push(call);
  // Comments inside a multi-line statement would be lost with it: keep them after the rewrite when
  // nothing but a comment follows on the statement's last line.
  const inner = stmt.descendantsOfType('comment').map((c) => c.text);
  const eolAt = ctx.text.indexOf('\n', stmt.endIndex);
  const after = ctx.text.slice(stmt.endIndex, eolAt < 0 ? ctx.text.length : eolAt).trim();
  if (inner.length > 0 && (after === '' || after.startsWith('#'))) parts[parts.length - 1] += '  ' + inner.join(' ');
  const lineStart = ctx.text.lastIndexOf('\n', stmt.startIndex - 1) + 1;
  const lead = ctx.text.slice(lineStart, stmt.startIndex);
  // A statement that starts its line gets one line per part; after `if x:` on the same line, `; `.
  const joiner = /^[ \t]*$/.test(lead) ? ctx.eol + lead : '; ';
  return { title: FIX_TITLE, applicability, edit: { range: rangeOf(stmt), newText: parts.join(joiner) }, imports };
}

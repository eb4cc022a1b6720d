/**
 * One file in, findings out: the pre-filter, the three rules, severities and suppressions. Used the
 * same way by the language server (with its incrementally edited tree) and the CLI.
 */
import path from 'node:path';
import type { Node, Tree } from 'web-tree-sitter';
import type { LintSettings } from '../shared/lintSettings';
import { findExits, type ExitSite } from './exits';
import { buildFix } from './fixes';
import { matchesAny } from './glob';
import { surroundings } from './handlers';
import { importEdit } from './imports';
import { callsLifecycle, lifecycleBranch, type Placement } from './lifecycle';
import { DEFAULT_SEVERITY, SNAP001_LEVEL_SEVERITY } from './rules';
import { Resolver } from './scopes';
import { findLateStandby } from './standby';
import { fileSuppressions, lineNoqa, silences } from './suppress';
import type { Finding, Range, RelatedInfo, ScopeLevel, Severity } from './types';

/** Files without any of these words cannot hold a finding and are never parsed. */
const GATE = /exit|quit|SystemExit|RESTORE_STANDBY/;
/** A file that imports Dynamo's snapshot lifecycle or calls its wait is a snapshot module. */
const LIFECYCLE_FILE = /^[ \t]*(?:from|import)[ \t]+dynamo\.common\.snapshot\b|\bEngineSnapshotController\b|\b(?:wait_for_restore|run_lifecycle)\s*\(/m;
const SNAPSHOT_FUNCTION = /snapshot|checkpoint|capture|restore/i;

export function mayHaveFindings(text: string): boolean {
  return GATE.test(text);
}

export interface FileInfo {
  /** Path relative to the workspace root (for `include` globs); the absolute path when outside one. */
  relPath: string;
  absPath?: string;
}

type Settings = Pick<LintSettings, 'include' | 'severity'>;

export function rangeOf(n: Node): Range {
  return {
    start: { line: n.startPosition.row, character: n.startPosition.column },
    end: { line: n.endPosition.row, character: n.endPosition.column },
  };
}

function severityFor(code: string, settings: Settings, fallback: Severity): Severity | undefined {
  const s = settings.severity[code];
  if (s === 'off') return undefined;
  return s ?? fallback;
}

function enclosingFunction(n: Node): Node | null {
  for (let p = n.parent; p; p = p.parent) if (p.type === 'function_definition') return p;
  return null;
}

function written(site: ExitSite): string {
  const callee = site.callee.text.replace(/\s+/g, '');
  if (site.kind === 'raise') return site.args ? `raise ${callee}(…)` : `raise ${callee}`;
  return `${callee}(${site.args && site.args.namedChildCount > 0 ? '…' : ''})`;
}

function snap001Message(site: ExitSite, level: ScopeLevel, fn: Node | null): string {
  const w = '`' + written(site) + '`';
  switch (level) {
    case 'capture':
      return `${w} after a successful snapshot capture unwinds into engine teardown; exit with os._exit`;
    case 'function':
      return `${w} in snapshot function '${fn?.childForFieldName('name')?.text ?? '?'}' exits through Python teardown; use os._exit on the capture path`;
    case 'module':
      return `${w} in a snapshot module exits through Python teardown; use os._exit on the capture path`;
  }
}

interface Run {
  tree: Tree;
  text: string;
  eol: string;
  resolver: Resolver;
  settings: Settings;
  atexit: Node | undefined;
}

function atexitHook(tree: Tree, text: string): Node | undefined {
  const m = /\batexit\.register\b|\bfrom\s+atexit\s+import\b/.exec(text);
  if (!m) return undefined;
  const n = tree.rootNode.descendantForIndex(m.index, m.index + 1);
  return n && (n.type === 'identifier' || n.type === 'dotted_name') ? n : undefined;
}

function snap001(run: Run, site: ExitSite, inScope: boolean, placement: Placement | undefined): Finding | undefined {
  const stmt = site.statement ?? site.node;
  const fn = enclosingFunction(site.node);
  let level: ScopeLevel | undefined;
  if (placement?.branch === 'captured') level = 'capture';
  else if (inScope && fn && (SNAPSHOT_FUNCTION.test(fn.childForFieldName('name')?.text ?? '') || callsLifecycle(fn))) level = 'function';
  else if (inScope) level = 'module';
  if (!level) return undefined;
  const around = surroundings(stmt, run.resolver);
  // Outside the capture branch a catching handler may be the intended control flow: stay silent.
  if (around.catching.length > 0 && level !== 'capture') return undefined;
  const severity = severityFor('SNAP001', run.settings, SNAP001_LEVEL_SEVERITY[level]);
  if (!severity) return undefined;
  const related: RelatedInfo[] = [
    ...around.catching.map((c) => ({ range: rangeOf(c), message: 'This handler catches the SystemExit; os._exit bypasses it' })),
    ...around.cleanup.map((c) => ({
      range: rangeOf(c),
      message: c.type === 'with_statement' ? "os._exit skips this with-statement's __exit__" : 'os._exit skips this finally block',
    })),
  ];
  if (run.atexit) related.push({ range: rangeOf(run.atexit), message: 'os._exit skips atexit handlers' });
  const fix = buildFix(site, {
    text: run.text,
    eol: run.eol,
    resolver: run.resolver,
    changesMoreThanTeardown: around.catching.length > 0 || around.cleanup.length > 0 || !!run.atexit,
  });
  if (fix) fix.importEdit = importEdit(run.tree.rootNode, run.text, run.eol, fix.imports);
  return {
    code: 'SNAP001',
    message: snap001Message(site, level, fn),
    severity,
    range: rangeOf(site.node),
    noqaLine: site.node.startPosition.row,
    level,
    fix,
    related,
  };
}

function snap002(run: Run, site: ExitSite): Finding | undefined {
  const severity = severityFor('SNAP002', run.settings, DEFAULT_SEVERITY.SNAP002!);
  if (!severity) return undefined;
  return {
    code: 'SNAP002',
    message: `\`${written(site)}\` on the restore path ends a restored worker; return normally and serve`,
    severity,
    range: rangeOf(site.node),
    noqaLine: site.node.startPosition.row,
    related: [],
  };
}

function snap003(run: Run, file: FileInfo): Finding[] {
  const severity = severityFor('SNAP003', run.settings, DEFAULT_SEVERITY.SNAP003!);
  if (!severity) return [];
  return findLateStandby(run.tree, run.text, path.basename(file.absPath ?? file.relPath)).map((f) => ({
    code: 'SNAP003',
    message: `Import of '${f.module}' runs before the restore-standby check; check SNAPSHOT_RESTORE_STANDBY before any engine import`,
    severity,
    range: rangeOf(f.importNode),
    noqaLine: f.importNode.startPosition.row,
    related: [{ range: rangeOf(f.check), message: 'The restore-standby check' }],
  }));
}

function lineBounds(text: string, line: number, starts: number[]): [number, number] {
  const start = starts[line] ?? text.length;
  const next = starts[line + 1];
  const end = next === undefined ? text.length : next - 1;
  return [start, end];
}

function lineStarts(text: string): number[] {
  const out = [0];
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) out.push(i + 1);
  return out;
}

/** Findings for one parsed file, suppressions applied, in text order. */
export function analyze(tree: Tree, text: string, file: FileInfo, settings: Settings): Finding[] {
  if (!mayHaveFindings(text)) return [];
  const run: Run = {
    tree,
    text,
    eol: text.includes('\r\n') ? '\r\n' : '\n',
    resolver: new Resolver(tree.rootNode),
    settings,
    atexit: atexitHook(tree, text),
  };
  const inScope = matchesAny(settings.include, file.relPath, file.absPath) || LIFECYCLE_FILE.test(text);
  const branchCache = new Map<number, Set<string>>();
  const findings: Finding[] = [];
  for (const site of findExits(tree, text, run.resolver)) {
    const placement = lifecycleBranch(site.statement ?? site.node, branchCache);
    if (placement?.branch === 'restored') {
      // Only an exit an `if` on the wait's result puts on the restore path is reported: after
      // `if not restored: os._exit(0)` the worker serves, and exiting when serving ends is normal.
      const f = placement.direct ? snap002(run, site) : undefined;
      if (f) findings.push(f);
      continue;
    }
    if (site.kind === 'os_exit') continue;
    const f = snap001(run, site, inScope, placement);
    if (f) findings.push(f);
  }
  if (/RESTORE_STANDBY/.test(text)) findings.push(...snap003(run, file));
  if (findings.length === 0) return findings;

  const fileWide = fileSuppressions(tree, text);
  const starts = lineStarts(text);
  return findings
    .filter((f) => !silences(fileWide, f.code))
    .filter((f) => {
      const [s, e] = lineBounds(text, f.noqaLine, starts);
      const noqa = lineNoqa(tree, text, s, e);
      return !noqa || !silences(noqa.codes, f.code);
    })
    .sort((a, b) => a.range.start.line - b.range.start.line || a.range.start.character - b.range.start.character);
}

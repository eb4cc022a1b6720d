/**
 * Rule metadata: code, kebab-case name, documentation page and default severities. Messages are
 * built where a finding is made; the severities here are what a `dynamoSnapshot.lint.severity`
 * override replaces.
 */
import type { ScopeLevel, Severity } from './types';

export interface RuleInfo {
  code: string;
  name: string;
  summary: string;
  /** Path of the rule's page relative to the extension (and repository) root. */
  doc: string;
}

export const TOOL = 'dynamo-snapshot';

export const RULES: Record<string, RuleInfo> = {
  SNAP001: {
    code: 'SNAP001',
    name: 'capture-exit-through-unwinding',
    summary: 'Exit through Python unwinding after a snapshot capture',
    doc: 'docs/rules/SNAP001.md',
  },
  SNAP002: {
    code: 'SNAP002',
    name: 'exit-on-restore-path',
    summary: 'Process exit on the restore path',
    doc: 'docs/rules/SNAP002.md',
  },
  SNAP003: {
    code: 'SNAP003',
    name: 'restore-standby-after-heavy-import',
    summary: 'Restore-standby check runs after a heavy engine import',
    doc: 'docs/rules/SNAP003.md',
  },
};

/** SNAP001's severity by how close the exit is to the capture-success branch. */
export const SNAP001_LEVEL_SEVERITY: Record<ScopeLevel, Severity> = {
  capture: 'error',
  function: 'warning',
  module: 'information',
};

export const DEFAULT_SEVERITY: Record<string, Severity> = {
  SNAP002: 'error',
  SNAP003: 'warning',
};

export function ruleDocPath(code: string): string | undefined {
  return RULES[code]?.doc;
}

/**
 * The lint library's own vocabulary. Positions are zero-based lines and UTF-16 columns, the same as
 * LSP's default position encoding, so the server passes them through unchanged.
 */

export interface Position {
  line: number;
  character: number;
}

export interface Range {
  start: Position;
  end: Position;
}

export interface TextEdit {
  range: Range;
  newText: string;
}

export type Severity = 'error' | 'warning' | 'information' | 'hint';

/** Where an exit sits relative to the snapshot lifecycle; decides SNAP001's severity. */
export type ScopeLevel = 'capture' | 'function' | 'module';

/**
 * `safe`: same observable behaviour apart from skipping teardown (offered in fix-all).
 * `unsafe`: changes more than teardown (a handler, cleanup or message route); offered only on request.
 */
export type Applicability = 'safe' | 'unsafe';

export interface Fix {
  title: string;
  applicability: Applicability;
  /** The statement or call rewrite. */
  edit: TextEdit;
  /** Modules the rewrite needs imported at the top of the file (`os`, `sys`), with the name to use. */
  imports: ImportNeed[];
  /** The import insertion for this fix alone (fix-all merges `imports` into one edit instead). */
  importEdit?: TextEdit;
}

export interface ImportNeed {
  module: 'os' | 'sys';
  /** The local name the rewrite uses (`os`, or `_os` when `os` is taken). */
  name: string;
}

export interface RelatedInfo {
  range: Range;
  message: string;
}

export interface Finding {
  code: string;
  message: string;
  severity: Severity;
  range: Range;
  /** Line (zero-based) whose `# noqa` comment silences the finding. */
  noqaLine: number;
  level?: ScopeLevel;
  fix?: Fix;
  related: RelatedInfo[];
}

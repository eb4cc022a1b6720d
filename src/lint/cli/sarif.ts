/**
 * SARIF 2.1.0 for GitHub code scanning: one run, the tool's rules, one result per finding with a
 * `ruleId`, a level and a location relative to `%SRCROOT%` with 1-based lines and columns (columns in
 * UTF-16 code units, as `columnKind` says).
 */
import { RULES, SNAP001_LEVEL_SEVERITY, DEFAULT_SEVERITY } from '../rules';
import type { Finding, Severity } from '../types';

export interface FileFindings {
  /** Path relative to the repository root, `/`-separated. */
  path: string;
  findings: Finding[];
}

const LEVEL: Record<Severity, 'error' | 'warning' | 'note'> = { error: 'error', warning: 'warning', information: 'note', hint: 'note' };

/** A `/`-separated path as a URI reference: `encodeURI` leaves `#` and `?`, which would start a fragment or query. */
function pathUri(p: string): string {
  return encodeURI(p).replace(/[#?]/g, (c) => encodeURIComponent(c));
}

export function toSarif(files: readonly FileFindings[], version: string): object {
  const rules = Object.values(RULES).map((r) => ({
    id: r.code,
    name: r.name,
    shortDescription: { text: r.summary },
    fullDescription: { text: `${r.summary}. See ${r.doc} in the Dynamo Snapshot Workbench repository.` },
    help: { text: `See ${r.doc}.` },
    defaultConfiguration: { level: LEVEL[r.code === 'SNAP001' ? SNAP001_LEVEL_SEVERITY.capture : DEFAULT_SEVERITY[r.code]!] },
  }));
  const index = new Map(rules.map((r, i) => [r.id, i]));
  const results = files.flatMap((f) =>
    f.findings.map((x) => ({
      ruleId: x.code,
      ruleIndex: index.get(x.code),
      level: LEVEL[x.severity],
      message: { text: x.message },
      locations: [
        {
          physicalLocation: {
            artifactLocation: { uri: pathUri(f.path), uriBaseId: '%SRCROOT%' },
            region: {
              startLine: x.range.start.line + 1,
              startColumn: x.range.start.character + 1,
              endLine: x.range.end.line + 1,
              endColumn: x.range.end.character + 1,
            },
          },
        },
      ],
      ...(x.fix ? { properties: { fixApplicability: x.fix.applicability } } : {}),
    })),
  );
  return {
    $schema: 'https://json.schemastore.org/sarif-2.1.0.json',
    version: '2.1.0',
    runs: [
      {
        tool: { driver: { name: 'dynamo-snapshot-lint', version, rules } },
        columnKind: 'utf16CodeUnits',
        results,
      },
    ],
  };
}

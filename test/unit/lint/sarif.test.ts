/** SARIF output: artifact URIs are URI references of the file path, whatever characters it holds. */
import assert from 'node:assert/strict';
import test from 'node:test';
import { toSarif } from '../../../src/lint/cli/sarif';
import type { Finding } from '../../../src/lint/types';

const finding: Finding = {
  code: 'SNAP001',
  message: 'm',
  severity: 'error',
  range: { start: { line: 2, character: 4 }, end: { line: 2, character: 15 } },
  noqaLine: 2,
  related: [],
};

test('artifact URIs escape #, ? and spaces so the path is not cut into a fragment or query', () => {
  const paths = ['src/issue#12/snapshot.py', 'src/what?/snapshot.py', 'my dir/snapshot ü.py'];
  const sarif = toSarif(paths.map((p) => ({ path: p, findings: [finding] })), '0.0.0') as {
    runs: { results: { locations: { physicalLocation: { artifactLocation: { uri: string }; region: { startLine: number; startColumn: number } } }[] }[] }[];
  };
  const uris = sarif.runs[0]!.results.map((r) => r.locations[0]!.physicalLocation.artifactLocation.uri);
  assert.deepEqual(uris, ['src/issue%2312/snapshot.py', 'src/what%3F/snapshot.py', 'my%20dir/snapshot%20%C3%BC.py']);
  for (const [i, u] of uris.entries()) {
    const url = new URL(u, 'file:///root/');
    assert.equal(url.hash + url.search, '');
    assert.equal(decodeURIComponent(url.pathname), `/root/${paths[i]}`);
  }
  assert.deepEqual(sarif.runs[0]!.results[0]!.locations[0]!.physicalLocation.region, { startLine: 3, startColumn: 5, endLine: 3, endColumn: 16 });
});

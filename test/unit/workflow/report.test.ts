import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { renderComparison } from '../../../src/core/workflow/compare';
import { renderReport } from '../../../src/core/workflow/report';
import { sampleRecord } from './support/sample';

describe('report rendering', () => {
  it('renders the step table, timings, evidence and a file:line link', () => {
    const r = sampleRecord('run-a', 1_796_000_000_000);
    const se = r.steps.find((s) => s.name === 'sourceExit')!;
    Object.assign(se, {
      state: 'failed',
      verdict: 'source killed by SIGSEGV | after capture',
      evidence: [
        { kind: 'exit', text: 'pid 7 killed by SIGSEGV' },
        { kind: 'log', rank: 'main', text: '\x1b[36m(EngineCore_DP0 pid=7)\x1b[0m Shutting down' },
        { kind: 'diagnostic', text: 'SNAP001 raise SystemExit', location: { file: '/ws/vllm/snapshot.py', line: 41 } },
      ],
    });
    r.outcome = 'failed';
    const md = renderReport(r, '/records/run-a.json');
    assert.match(md, /^# Snapshot run run-a: FAILED/);
    assert.match(md, /\| Source exit \| ✗ failed \| 50 ms \| source killed by SIGSEGV \\\| after capture \|/);
    assert.match(md, /- restore time \(request → resumed\): 1\.10 s/);
    assert.match(md, /```text\n\(EngineCore_DP0 pid=7\) Shutting down\n```/, 'log evidence is fenced, colours stripped');
    assert.match(md, /\[\/ws\/vllm\/snapshot\.py:42\]\(file:\/\/\/ws\/vllm\/snapshot\.py#L42\)/);
    assert.match(md, /this record: `\/records\/run-a\.json`/);
  });

  it('compares two runs side by side with the change', () => {
    const a = sampleRecord('run-a', 1000);
    const b = sampleRecord('run-b', 5000, { metrics: { ...a.metrics, restoreMs: 550 } });
    b.steps.find((s) => s.name === 'warmup')!.state = 'warned';
    b.steps.find((s) => s.name === 'warmup')!.verdict = 'no warm-up on DP1';
    const md = renderComparison(a, b);
    assert.match(md, /\| Warm-up \(every rank\) \| ✓ passed \| ⚠ warned \|/);
    assert.match(md, /\| restore time \(request → resumed\) \| 1\.10 s \| 550 ms \| −550 ms \(-50 %\) \|/);
    assert.match(md, /## Verdicts that differ[\s\S]*B: no warm-up on DP1/);
  });
});

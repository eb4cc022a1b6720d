/** A complete, valid run record for tests of records, reports and comparisons. */
import type { RunRecord } from '../../../../src/core/workflow/records';
import { STEP_NAMES } from '../../../../src/core/workflow/types';

export function sampleRecord(runId: string, startedAt: number, over: Partial<RunRecord> = {}): RunRecord {
  return {
    schema: 'dynamo-snapshot-workbench/run',
    version: 1,
    runId,
    worker: 'local-demo',
    transport: 'local',
    backend: 'vllm',
    captureMode: 'protocol',
    startedAt,
    endedAt: startedAt + 2500,
    outcome: 'passed',
    steps: STEP_NAMES.map((name, i) => ({ name, state: 'passed', startedAt: startedAt + i * 100, endedAt: startedAt + i * 100 + 50, verdict: `${name} ok`, evidence: [{ kind: 'timing', text: name, valueMs: 50 }] })),
    metrics: { readyMs: 850, captureMs: 12, restoreMs: 1100, firstTokenMs: 23, phaseTimingsMs: { 'capture.write_snapshot_complete': 6 } },
    host: { hostname: 'vm', gpus: [] },
    ranks: [{ id: 'DP0', lines: 10, markers: { 'warmup-done': startedAt + 300 } }],
    logs: { runDir: '/tmp/runs/x', workerFiles: ['engine.log'] },
    events: [{ type: 'run-started', runId, worker: 'local-demo', at: startedAt, steps: [...STEP_NAMES] }, { type: 'run-ended', runId, at: startedAt + 2500, outcome: 'passed' }],
    ...over,
  };
}


import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseLogLine } from '../../../src/core/workflow/logLine';
import { matchMarker } from '../../../src/core/workflow/markers';
import { RankTracker } from '../../../src/core/workflow/ranks';

describe('log lines: rank prefix and logging header are stripped before matching', () => {
  const cases: [string, string, string][] = [
    ['\x1b[36m(EngineCore_DP1 pid=5001)\x1b[0m vLLM snapshot warmup complete (2 tokens)', 'DP1', 'vLLM snapshot warmup complete (2 tokens)'],
    ['(Worker_DP0_TP1 pid=77) Pausing model', 'DP0', 'Pausing model'],
    ['(EngineCore pid=77) vLLM snapshot warmup starting', 'DP0', 'vLLM snapshot warmup starting'],
    ['2026-11-30T06:00:00.000000Z  INFO dynamo_standin: Ready for snapshot. Polling for sentinel in /c (snapshot-complete or restore-complete)', 'main', 'Ready for snapshot. Polling for sentinel in /c (snapshot-complete or restore-complete)'],
    ['[2026-11-30 06:00:00 DP1 TP0] SGLang snapshot warmup complete', 'DP1', 'SGLang snapshot warmup complete'],
    ['[11/30/2026-06:00:00] [TRT-LLM] [RANK 0] [I] Initial TRT-LLM snapshot captured successfully; exiting without destroying the engine', 'RANK0', 'Initial TRT-LLM snapshot captured successfully; exiting without destroying the engine'],
    ['INFO 11-30 06:00:00 [lifecycle.py:88] Snapshot completion sentinel detected', 'main', 'Snapshot completion sentinel detected'],
    ['{"time":"2026-11-30T06:00:00Z","level":"INFO","message":"Restore sentinel detected"}', 'main', 'Restore sentinel detected'],
  ];
  for (const [raw, rank, message] of cases) {
    it(`${rank}: ${message.slice(0, 40)}`, () => assert.deepEqual(parseLogLine(raw), { rank, message }));
  }
});

describe('lifecycle markers (dynamo-snapshot.md §6)', () => {
  const table: [string, string | undefined][] = [
    ['Snapshot mode enabled (watcher-driven signals)', 'snapshot-mode'],
    ['Checkpoint mode enabled (watcher-driven signals)', 'snapshot-mode'],
    ['SGLang engine loaded in 12.34s (snapshot mode)', 'load'],
    ['vLLM snapshot warmup starting', 'warmup-start'],
    ['Running vLLM snapshot warmup generation', 'warmup-start'],
    ['vLLM snapshot warmup complete', 'warmup-done'],
    ['vLLM snapshot warmup generation completed', 'warmup-done'],
    ['SGLang snapshot warmup complete', 'warmup-done'],
    ['vLLM snapshot warmup generated no tokens', 'warmup-failed'],
    ['Skipping vLLM snapshot warmup: only ordinary aggregated generation workers are supported', 'warmup-skipped'],
    ['Pausing model', 'pause'],
    ['Ready for snapshot. Polling for sentinel in /snapshot-control (snapshot-complete or restore-complete)', 'ready'],
    ['Snapshot completion sentinel detected', 'capture'],
    ['Initial TRT-LLM snapshot captured successfully; exiting without destroying the engine', 'capture'],
    ['Captured snapshot restore context at /snapshot-control/restore-context.json', 'restore'],
    ['Restore sentinel detected', 'restore'],
    ['Resuming model after restore', 'resume'],
    ['Dynamo runtime created after TRT-LLM snapshot restore', 'serve'],
    // Near misses are not markers: exact strings only.
    ['Pausing model now', undefined],
    ['Ready for snapshot', undefined],
    ['restore sentinel detected', undefined],
  ];
  for (const [message, kind] of table) {
    it(`${JSON.stringify(message.slice(0, 50))} → ${kind ?? 'none'}`, () => assert.equal(matchMarker(message)?.kind, kind));
  }
});

describe('rank tracker', () => {
  it('knows which DP ranks warmed up and which did not', () => {
    const t = new RankTracker();
    t.push('(EngineCore_DP0 pid=1) vLLM snapshot warmup starting', 1);
    t.push('(EngineCore_DP0 pid=1) vLLM snapshot warmup complete', 2);
    t.push('(EngineCore_DP1 pid=2) Model loaded', 3);
    const expected = t.expectedRanks();
    assert.deepEqual(expected, ['DP0', 'DP1']);
    assert.ok(t.hit('DP0', 'warmup-done', expected));
    assert.equal(t.hit('DP1', 'warmup-done', expected), undefined);
    assert.deepEqual(t.expectedRanks(4), ['DP0', 'DP1', 'DP2', 'DP3']);
  });

  it('with one DP rank, a marker from the unprefixed main process counts', () => {
    const t = new RankTracker();
    t.push('2026-11-30T06:00:00Z  INFO x: vLLM snapshot warmup complete', 5);
    assert.deepEqual(t.expectedRanks(1), ['main']);
    assert.equal(t.hit('main', 'warmup-done', ['main'])?.at, 5);
  });

  it('keeps a bounded tail', () => {
    const t = new RankTracker('vllm', 5);
    for (let i = 0; i < 20; i++) t.push(`line ${i}`, i);
    assert.deepEqual(t.tail(3), ['line 17', 'line 18', 'line 19']);
    assert.equal(t.tail(100).length, 5);
  });
});

describe('the lines of the pinned ai-dynamo 1.6.1 and the newer upstream revisions', () => {
  // Source: ai-dynamo 1.6.1 (PyPI) dynamo/common/snapshot/lifecycle.py, restore_context.py, vllm|sglang|trtllm/snapshot.py;
  // "Unified vLLM snapshot mode enabled": ai-dynamo/dynamo vLLM unified entrypoint (stored revision).
  const table: [string, string][] = [
    ['Restore sentinel detected; returning application-paused', 'restore'],
    ['Applied snapshot restore context runtime env', 'resume'],
    ['Refreshed snapshot restore runtime config', 'resume'],
    ['[Shadow] Engine awake, registering with discovery', 'resume'],
    ['vLLM snapshot captured successfully', 'capture'],
    ['Unified vLLM snapshot mode enabled', 'snapshot-mode'],
    ['SGLang engine loaded in 3.21s (snapshot mode)', 'load'],
    ['SGLang engine loaded in 3.21s (checkpoint mode)', 'load'],
    ['Skipping SGLang snapshot warmup for non-generation model', 'warmup-not-applicable'],
    ["Overriding NCCL_IB_DISABLE='0' with '1' for snapshot mode because CRIU and cuda-checkpoint cannot restore InfiniBand state", 'note'],
    ["Overriding HF_HUB_OFFLINE='0' with '1' in snapshot mode to avoid external Hugging Face sockets in snapshotted processes", 'note'],
    ['This vLLM build has no AsyncLLM.checkpoint_prepare/checkpoint_restore; snapshotting without communicator checkpointing. Requires vLLM 0.27.0 or newer.', 'note'],
    ['--embedding-worker-processes greater than 1 is incompatible with checkpoint mode (DYN_SNAPSHOT_CONTROL_DIR is set).', 'config-error'],
    ['TRT-LLM Dynamo Snapshot currently supports only the aggregated text worker path. Unsupported snapshot setting(s): --connector kvbm', 'config-error'],
  ];
  for (const [message, kind] of table) {
    it(`${JSON.stringify(message.slice(0, 50))} → ${kind}`, () => assert.equal(matchMarker(message)?.kind, kind));
  }
});

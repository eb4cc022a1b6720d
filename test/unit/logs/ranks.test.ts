import assert from 'node:assert/strict';
import test from 'node:test';
import { classifyLine, compareRanks } from '../../../src/core/logs/ranks';

test('vLLM per-rank prefixes, with and without colour', () => {
  assert.deepEqual(classifyLine('(EngineCore_DP0 pid=123) Loading model'), { rank: 'DP0', text: 'Loading model' });
  assert.deepEqual(classifyLine('\x1b[36m(Worker_DP1_TP0 pid=9)\x1b[0m warmup'), { rank: 'DP1', text: 'warmup' });
  assert.deepEqual(classifyLine('(EngineCore pid=5) x'), { rank: 'DP0', text: 'x' });
  assert.deepEqual(classifyLine('(VllmWorker TP0 pid=5) x'), { rank: 'DP0', text: 'x' });
  assert.deepEqual(classifyLine('(APIServer pid=5) x'), { rank: 'main', text: 'x' });
});

test('SGLang and TRT-LLM formats', () => {
  assert.deepEqual(classifyLine('[2025-09-02 10:00:00 DP1 TP0] SGLang snapshot warmup complete', 'sglang'), { rank: 'DP1', text: 'SGLang snapshot warmup complete' });
  assert.deepEqual(classifyLine('[2025-09-02 10:00:00 TP3] x', 'sglang'), { rank: 'TP3', text: 'x' });
  assert.deepEqual(classifyLine('[2025-09-02 10:00:00 DP_RANK 2 ATTN_TP_RANK 0] y', 'sglang'), { rank: 'DP2', text: 'y' });
  assert.deepEqual(classifyLine('[09/02/2025-10:00:00] [TRT-LLM] [RANK 1] [I] hello', 'trtllm'), { rank: 'RANK1', text: 'hello' });
  assert.deepEqual(classifyLine('[09/02/2025-10:00:00] [TRT-LLM] [I] before MPI', 'trtllm'), { rank: 'main', text: 'before MPI' });
});

test('unprefixed lines go to main, unchanged', () => {
  const l = '2025-09-02T15:50:01.770028Z  INFO dynamo: Ready for snapshot. Polling for sentinel in /c (snapshot-complete or restore-complete)';
  assert.deepEqual(classifyLine(l), { rank: 'main', text: l });
  assert.deepEqual(classifyLine('(not a prefix) text'), { rank: 'main', text: '(not a prefix) text' });
  assert.deepEqual(classifyLine(''), { rank: 'main', text: '' });
});

test('display order: main, DP0..DPn numerically, others, agent', () => {
  assert.deepEqual(['agent', 'DP10', 'DP2', 'main', 'RANK0', 'DP0'].sort(compareRanks), ['main', 'DP0', 'DP2', 'DP10', 'RANK0', 'agent']);
});

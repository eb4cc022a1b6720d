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

/**
 * Upstream-shaped lines, each naming where the shape was read (docs/compatibility.md, "Log shapes").
 * The rank must be exactly the real one: the main process is `main`, never a DP rank, and a DP rank is
 * never `main`.
 */
const UPSTREAM: { source: string; line: string; backend?: 'vllm' | 'sglang' | 'trtllm'; rank: string; text: string }[] = [
  { source: 'vllm-project/vllm vllm/utils _add_prefix (CYAN ESC[1;36m, RESET ESC[0;0m), as recorded in shared/reference/upstream-now.md §2', line: '\x1b[1;36m(EngineCore_DP0 pid=4242)\x1b[0;0m INFO 10-01 12:00:00 [core.py:95] Loading model', rank: 'DP0', text: 'INFO 10-01 12:00:00 [core.py:95] Loading model' },
  { source: 'vllm (same)', line: '\x1b[1;36m(EngineCore_DP1 pid=4243)\x1b[0;0m x', rank: 'DP1', text: 'x' },
  { source: 'vllm (same), DP=1', line: '\x1b[1;36m(EngineCore pid=17)\x1b[0;0m x', rank: 'DP0', text: 'x' },
  { source: 'vllm (same), the front end', line: '\x1b[1;36m(APIServer pid=16)\x1b[0;0m x', rank: 'main', text: 'x' },
  { source: 'vllm (same), a TP worker of DP=1', line: '\x1b[1;36m(Worker_TP1 pid=18)\x1b[0;0m x', rank: 'DP0', text: 'x' },
  { source: 'vllm (same), a TP worker of DP rank 1', line: '\x1b[1;36m(Worker_DP1_TP1 pid=19)\x1b[0;0m x', rank: 'DP1', text: 'x' },
  { source: 'vllm (same), the multiproc executor', line: '\x1b[1;36m(VllmWorker rank=0 pid=20)\x1b[0;0m x', rank: 'DP0', text: 'x' },
  { source: 'vllm, NO_COLOR', line: '(EngineCore_DP1 pid=21) x', rank: 'DP1', text: 'x' },
  { source: 'sgl-project/sglang python/sglang/srt/managers/scheduler.py run_scheduler_process (parts only when > 1)', backend: 'sglang', line: '[2026-10-01 12:00:00 DP1] Prefill batch, #new-seq: 1', rank: 'DP1', text: 'Prefill batch, #new-seq: 1' },
  { source: 'sglang (same), DP=2 TP=2', backend: 'sglang', line: '[2026-10-01 12:00:00 DP0 TP1] x', rank: 'DP0', text: 'x' },
  { source: 'sglang (same), every part', backend: 'sglang', line: '[2026-10-01 12:00:00 DP1 PP1 ATTN_CP1 MOE_DP1 TP3 EP2] x', rank: 'DP1', text: 'x' },
  { source: 'sglang (same), DP=1 TP=2', backend: 'sglang', line: '[2026-10-01 12:00:00 TP1] x', rank: 'TP1', text: 'x' },
  { source: 'sglang (same), the main process (no part)', backend: 'sglang', line: '[2026-10-01 12:00:00] Uvicorn running', rank: 'main', text: 'Uvicorn running' },
  { source: 'NVIDIA/TensorRT-LLM tensorrt_llm/logger.py', backend: 'trtllm', line: '[10/01/2026-12:00:00] [TRT-LLM] [RANK 1] [I] x', rank: 'RANK1', text: 'x' },
  { source: 'NVIDIA/TensorRT-LLM cpp/include/tensorrt_llm/common/logger.h getPrefix', backend: 'trtllm', line: '[TensorRT-LLM][INFO] Engine version 1.3.0 found in the config file', rank: 'main', text: 'Engine version 1.3.0 found in the config file' },
  { source: 'TensorRT-LLM logger.h getPrefix(level, rank)', backend: 'trtllm', line: '[TensorRT-LLM][WARNING][1] x', rank: 'RANK1', text: 'x' },
  { source: 'ai-dynamo 1.6.1 dynamo/runtime/logging.py → Rust logger (colour even into a pipe)', line: '\x1b[2m2026-10-01T12:00:00.123456Z\x1b[0m \x1b[32m INFO\x1b[0m \x1b[2mlifecycle.run_lifecycle\x1b[0m\x1b[2m:\x1b[0m Pausing model', rank: 'main', text: '\x1b[2m2026-10-01T12:00:00.123456Z\x1b[0m \x1b[32m INFO\x1b[0m \x1b[2mlifecycle.run_lifecycle\x1b[0m\x1b[2m:\x1b[0m Pausing model' },
];

test('upstream shapes: every line lands on exactly its real rank, whichever backend the profile names', () => {
  for (const u of UPSTREAM) {
    for (const backend of ['vllm', 'sglang', 'trtllm'] as const) {
      assert.deepEqual(classifyLine(u.line, backend), { rank: u.rank, text: u.text }, `${u.source} (profile backend ${backend}): ${JSON.stringify(u.line)}`);
    }
  }
});

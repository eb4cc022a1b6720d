import assert from 'node:assert/strict';
import test from 'node:test';
import { stripAnsi } from '../../../src/core/views/ansi';
import { lineSeverity } from '../../../src/core/views/severity';

test('stripAnsi removes vLLM colour prefixes, SGR sequences and cursor moves, keeping the text', () => {
  assert.equal(stripAnsi('\x1b[36m(EngineCore_DP1 pid=4242)\x1b[0m INFO Pausing model'), '(EngineCore_DP1 pid=4242) INFO Pausing model');
  assert.equal(stripAnsi('\x1b[1;31mERROR\x1b[0m boom'), 'ERROR boom');
  assert.equal(stripAnsi('a\x1b[2Kb\x1b[10;20Hc'), 'abc');
  assert.equal(stripAnsi('\x9b31mred\x9b0m'), 'red');
});

test('stripAnsi removes OSC titles and hyperlinks and keeps the link text', () => {
  assert.equal(stripAnsi('\x1b]0;title\x07after'), 'after');
  assert.equal(stripAnsi('\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\ text'), 'link text');
});

test('stripAnsi keeps what a terminal would show after carriage returns, and keeps tabs', () => {
  assert.equal(stripAnsi('Loading  10%\rLoading  50%\rLoading 100%'), 'Loading 100%');
  assert.equal(stripAnsi('line\r'), 'line');
  assert.equal(stripAnsi('a\tb'), 'a\tb');
  assert.equal(stripAnsi('bell\x07 and nul\x00'), 'bell and nul');
});

test('stripAnsi returns plain lines unchanged (same string)', () => {
  const s = 'INFO 11-30 05:00:00 [core.py:1] plain line with (parens) and [brackets]';
  assert.equal(stripAnsi(s), s);
});

test('lineSeverity finds the level markers the backends print, not the word "error" in prose', () => {
  assert.equal(lineSeverity('2025-09-02T15:50:01.770028Z ERROR dynamo_runtime: failed'), 'error');
  assert.equal(lineSeverity('ERROR 11-30 05:00:00 [core.py:1] boom'), 'error');
  assert.equal(lineSeverity('(EngineCore_DP0 pid=1) WARNING 11-30 05:00:00 [x.py:2] slow'), 'warning');
  assert.equal(lineSeverity('[11/30/2025-05:00:00] [TRT-LLM] [RANK 0] [E] bad'), 'error');
  assert.equal(lineSeverity('[11/30/2025-05:00:00] [TRT-LLM] [RANK 0] [W] meh'), 'warning');
  assert.equal(lineSeverity('[TensorRT-LLM][ERROR] x'), 'error');
  assert.equal(lineSeverity('Traceback (most recent call last):'), 'error');
  assert.equal(lineSeverity('RuntimeError: CUDA error: an illegal memory access'), 'error');
  assert.equal(lineSeverity('WARN:root:deprecated'), 'warning');
  assert.equal(lineSeverity('INFO no errors found, error rate 0'), undefined);
  assert.equal(lineSeverity('INFO warming up the ERRORS table'), undefined);
  assert.equal(lineSeverity(''), undefined);
});

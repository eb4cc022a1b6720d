import assert from 'node:assert/strict';
import fs from 'node:fs';
import test from 'node:test';
import { createLogRouter, type RankBatch } from '../../../src/core/logs/router';
import { scratch } from '../transport/helpers';

const dir = () => scratch('router');

test('lines are split across chunks, routed by rank, written to per-rank files and announced in batches', () => {
  const r = createLogRouter({ dir: dir() });
  const batches: RankBatch[][] = [];
  const ranksSeen: string[] = [];
  r.onLines((b) => batches.push(b));
  r.onRank((k) => ranksSeen.push(k));
  r.push('engine.log', 'start\n(EngineCore_DP0 pid=1) a\n(EngineCore_DP1 pid=2) b\n(EngineCore_DP0 pid=1) par');
  r.push('engine.log', 'tial\r\n');
  r.pushLine('agent', 'capture started');
  assert.deepEqual(r.ranks(), ['main', 'DP0', 'DP1', 'agent']);
  assert.deepEqual(ranksSeen, ['main', 'DP0', 'DP1', 'agent']);
  assert.deepEqual(r.tail('DP0'), ['(EngineCore_DP0 pid=1) a', '(EngineCore_DP0 pid=1) partial']);
  assert.equal(batches.length, 3);
  assert.deepEqual(batches[1]!.map((b) => [b.rank, b.lines.map((l) => l.text)]), [['DP0', ['partial']]]);
  r.dispose();
  assert.equal(fs.readFileSync(r.filePath('DP1')!, 'utf8'), '(EngineCore_DP1 pid=2) b\n');
  assert.equal(fs.readFileSync(r.mergedPath()!, 'utf8').split('\n')[0], 'start');
});

test('a partial last line is routed when its file ends or the router is disposed', () => {
  const r = createLogRouter({ dir: dir() });
  r.push('a.log', '(EngineCore_DP2 pid=1) no newline');
  assert.deepEqual(r.tail('DP2'), []);
  r.endFile('a.log');
  assert.deepEqual(r.tail('DP2'), ['(EngineCore_DP2 pid=1) no newline']);
  r.push('b.log', 'tail');
  r.dispose();
  assert.deepEqual(r.tail('main'), ['tail']);
  r.push('b.log', 'ignored\n');
  assert.deepEqual(r.tail('main'), ['tail']);
});

test('memory stays bounded per rank while the files keep everything', () => {
  const r = createLogRouter({ dir: dir(), memoryLinesPerRank: 100, merged: false });
  const line = (i: number) => `(EngineCore_DP${i % 4} pid=9) line ${i} ${'x'.repeat(80)}`;
  let heapAfterWarm = 0;
  for (let round = 0; round < 40; round++) {
    let chunk = '';
    for (let i = round * 5000; i < (round + 1) * 5000; i++) chunk += line(i) + '\n';
    r.push('engine.log', chunk);
    if (round === 5) {
      global.gc?.();
      heapAfterWarm = process.memoryUsage().heapUsed;
    }
  }
  global.gc?.();
  const heapEnd = process.memoryUsage().heapUsed;
  for (const k of ['DP0', 'DP1', 'DP2', 'DP3']) assert.equal(r.tail(k).length, 100);
  assert.equal(r.tail('DP3').at(-1), line(199_999));
  assert.equal(r.stats().lines, 200_000);
  if (global.gc) assert.ok(heapEnd - heapAfterWarm < 16 * 1024 * 1024, `heap grew by ${heapEnd - heapAfterWarm} bytes`);
  r.dispose();
  const lines = fs.readFileSync(r.filePath('DP1')!, 'utf8').split('\n');
  assert.equal(lines.length - 1, 50_000);
});

test('a runaway line without newline is cut instead of growing memory', () => {
  const r = createLogRouter({ dir: dir(), maxLineBytes: 1000 });
  r.push('x', 'y'.repeat(600));
  r.push('x', 'y'.repeat(600));
  assert.equal(r.tail('main')[0]!.length, 1200);
  r.dispose();
});

test('a throwing listener does not stop routing', () => {
  const r = createLogRouter({ dir: dir() });
  let seen = 0;
  r.onLines(() => {
    throw new Error('boom');
  });
  const d = r.onLines(() => seen++);
  r.push('f', 'a\n');
  d.dispose();
  r.push('f', 'b\n');
  assert.equal(seen, 1);
  r.dispose();
});

test('raw bytes route like text: ranks interleaved line by line, prefixes reused, CRLF, multi-byte, lines across pushes', () => {
  const lines = [
    '\x1b[36m(EngineCore_DP0 pid=1)\x1b[0m INFO a',
    '\x1b[36m(EngineCore_DP0 pid=1)\x1b[0m INFO b é',
    '\x1b[36m(EngineCore_DP1 pid=2)\x1b[0m INFO c',
    'plain line',
    '\x1b[36m(EngineCore_DP0 pid=1)\x1b[0m INFO d\r',
    '0: [TRT-LLM] rank zero',
    '0: not a label line',
    '[2025-01-01 00:00:00 DP3 TP0] sglang',
  ];
  const text = lines.join('\n') + '\n';
  const asText = createLogRouter({ dir: dir() });
  const asBytes = createLogRouter({ dir: dir() });
  asText.push('engine.log', text);
  const b = Buffer.from(text);
  // Cut in the middle of a multi-byte character and of a prefix.
  const cut1 = b.indexOf(Buffer.from('é')) + 1;
  asBytes.push('engine.log', b.subarray(0, cut1));
  asBytes.push('engine.log', b.subarray(cut1, cut1 + 30));
  asBytes.push('engine.log', new Uint8Array(b.subarray(cut1 + 30)));
  for (const r of [asText, asBytes]) {
    assert.deepEqual(r.ranks(), ['main', 'DP0', 'DP1', 'DP3', 'RANK0']);
    assert.deepEqual(r.tail('DP0'), [lines[0], lines[1], lines[4]!.slice(0, -1)]);
    assert.deepEqual(r.tail('RANK0'), [lines[5]]);
    assert.deepEqual(r.tail('main'), ['plain line', '0: not a label line']);
    assert.equal(r.stats().lines, 8);
    assert.equal(r.stats().bytes, b.length);
    r.dispose();
    assert.equal(fs.readFileSync(r.mergedPath()!, 'utf8'), text);
    assert.equal(fs.readFileSync(r.filePath('DP1')!, 'utf8'), lines[2] + '\n');
  }
});

test('only the tail is decoded, yet counts and files hold every line of a large chunk', () => {
  const r = createLogRouter({ dir: dir(), memoryLinesPerRank: 10 });
  let chunk = '';
  for (let i = 0; i < 50_000; i++) chunk += `(EngineCore_DP${i % 2} pid=${i % 2}) line ${i}\n`;
  r.push('engine.log', Buffer.from(chunk));
  assert.deepEqual(r.tail('DP1', 2), ['(EngineCore_DP1 pid=1) line 49997', '(EngineCore_DP1 pid=1) line 49999']);
  assert.equal(r.tail('DP0').length, 10);
  assert.deepEqual(r.stats().linesPerRank, { DP0: 25_000, DP1: 25_000 });
  r.dispose();
  assert.equal(fs.readFileSync(r.filePath('DP0')!, 'utf8').split('\n').length - 1, 25_000);
});

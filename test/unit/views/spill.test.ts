import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import test from 'node:test';
import { parseMergedLine } from '../../../src/core/views/format';
import { LogSpill, readFileLines, readFileTail } from '../../../src/core/views/logSpill';
import { helloDetails } from '../../../src/core/views/hello';
import { rankFileName } from '../../../src/core/views/ranks';

test('LogSpill writes each rank to its file and every line once to merged.log, in order', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dsw-spill-'));
  try {
    const spill = new LogSpill(dir);
    const expected: Record<string, string[]> = {};
    const merged: [string, string][] = [];
    for (let i = 0; i < 500; i++) {
      const rank = i % 3 === 0 ? 'main' : `DP${i % 2}`;
      const lines = [`l${i}a`, `l${i}b | x`];
      spill.append(rank, lines);
      (expected[rank] ??= []).push(...lines);
      for (const l of lines) merged.push([rank, l]);
    }
    await spill.close();
    for (const [rank, lines] of Object.entries(expected)) {
      assert.deepEqual(fs.readFileSync(path.join(dir, rankFileName(rank)), 'utf8').split('\n').slice(0, -1), lines);
    }
    const m = fs.readFileSync(spill.mergedPath, 'utf8').split('\n').slice(0, -1).map((l) => parseMergedLine(l)!);
    assert.deepEqual(m.map((x) => [x.rank, x.text]), merged);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('readFileTail reads only the end of a big file and drops the cut first line', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dsw-tail-'));
  try {
    const f = path.join(dir, 'x.log');
    fs.writeFileSync(f, Array.from({ length: 1000 }, (_, i) => `line ${i}`).join('\n') + '\n');
    const all = await readFileTail(f, 5000);
    assert.equal(all.lines.length, 1000);
    assert.equal(all.total, 1000);
    assert.equal(all.truncated, false);
    const last = await readFileTail(f, 10);
    assert.deepEqual(last.lines, Array.from({ length: 10 }, (_, i) => `line ${990 + i}`));
    assert.equal(last.truncated, true);
    const cut = await readFileTail(f, 5000, 100);
    assert.ok(cut.lines.every((l) => /^line \d+$/.test(l)));
    assert.equal(cut.lines.at(-1), 'line 999');
    assert.equal(cut.total, undefined);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('rank file names are safe', () => {
  assert.equal(rankFileName('DP0'), 'DP0.log');
  assert.equal(rankFileName('../x y'), '.._x_y.log');
});

test('hello details: GPUs, driver and tool versions, with warnings where capture would fail', () => {
  const rows = helloDetails({
    v: 1, t: 0, type: 'hello', agentVersion: '0.1.0', python: '3.11.2', platform: 'Linux-6.1', hostname: 'gpu-7', uid: 0, isRoot: true,
    driverVersion: '570.86', gpus: [{ index: 0, name: 'NVIDIA H200', memoryTotalMiB: 143771 }],
    cudaCheckpoint: { present: false }, criu: { present: true, version: '4.1', check: { ok: false, message: 'no userns' } }, cudaDriverCheckpointApi: false,
  });
  const by = Object.fromEntries(rows.map((r) => [r.label, r]));
  assert.equal(by['GPU 0']!.value, 'NVIDIA H200 · 140 GiB');
  assert.equal(by.driver!.value, '570.86');
  assert.equal(by['cuda-checkpoint']!.level, 'warning');
  assert.match(by.CRIU!.value, /4\.1 · check: no userns/);
  assert.equal(by.CRIU!.level, 'warning');
  assert.match(by.host!.value, /gpu-7 .* root/);
});

test('readFileLines returns a window of lines by number without reading the whole file into memory', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dsw-lines-'));
  try {
    const f = path.join(dir, 'x.log');
    fs.writeFileSync(f, Array.from({ length: 300_000 }, (_, i) => `line ${i + 1}`).join('\n') + '\n');
    const w = await readFileLines(f, 123_456, 3);
    assert.deepEqual(w, { first: 123_456, lines: ['line 123456', 'line 123457', 'line 123458'] });
    const end = await readFileLines(f, 299_999, 10);
    assert.deepEqual(end.lines, ['line 299999', 'line 300000']);
    fs.writeFileSync(f, 'a\nb\nno newline at end');
    assert.deepEqual((await readFileLines(f, 2, 5)).lines, ['b', 'no newline at end']);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

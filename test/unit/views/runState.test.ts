import assert from 'node:assert/strict';
import test from 'node:test';
import { documentLineOf, formatMergedLog, formatRankLog, parseMergedLine } from '../../../src/core/views/format';
import { RunLogs } from '../../../src/core/views/runLogs';
import { MAX_ISSUES_PER_RANK, RunState } from '../../../src/core/views/runState';
import { Ring } from '../../../src/core/logs/ring';
import type { RunEvent } from '../../../src/core/workflow/types';

const start = (runId = 'r1'): RunEvent => ({ type: 'run-started', runId, worker: 'local-demo', at: 1000, steps: ['connect', 'start', 'warmup'] });

test('Ring keeps the last `capacity` items in order', () => {
  const r = new Ring<number>(3);
  for (let i = 1; i <= 7; i++) r.push(i);
  assert.deepEqual(r.toArray(), [5, 6, 7]);
  assert.equal(r.last(), 7);
  assert.equal(r.length, 3);
  assert.throws(() => new Ring(0), /positive integer/);
});

test('RunState: one rank summary per rank, markers in order, last line, phase', () => {
  const s = RunState.fromStart(start() as Extract<RunEvent, { type: 'run-started' }>, 100);
  s.apply({ type: 'log-lines', runId: 'r1', rank: 'DP1', lines: ['a', 'b'] }, 1100);
  s.apply({ type: 'log-lines', runId: 'r1', rank: 'DP0', lines: ['x'] }, 1100);
  s.apply({ type: 'log-lines', runId: 'r1', rank: 'main', lines: ['m'] }, 1100);
  const c = s.apply({ type: 'rank-marker', runId: 'r1', rank: 'DP0', phase: 'warmup', at: 1200, line: 'vLLM snapshot warmup starting' })!;
  assert.deepEqual([...c.ranks], ['DP0']);
  assert.equal(c.rankAdded, false);
  s.apply({ type: 'rank-marker', runId: 'r1', rank: 'DP0', phase: 'pause', at: 1300, line: 'Pausing model' });
  assert.deepEqual(s.ranks().map((r) => r.rank), ['main', 'DP0', 'DP1']);
  const dp0 = s.rank('DP0')!;
  assert.equal(dp0.phase, 'pause');
  assert.deepEqual(dp0.markers.map((m) => m.phase), ['warmup', 'pause']);
  assert.equal(s.rank('DP1')!.lastLine, 'b');
  assert.equal(s.rank('DP1')!.lines, 2);
});

test('RunState ignores events of another run and records the end', () => {
  const s = RunState.fromStart(start() as Extract<RunEvent, { type: 'run-started' }>, 100);
  assert.equal(s.apply({ type: 'log-lines', runId: 'other', rank: 'DP0', lines: ['x'] }), undefined);
  assert.equal(s.ranks().length, 0);
  assert.equal(s.active, true);
  s.apply({ type: 'run-ended', runId: 'r1', at: 5000, outcome: 'failed' });
  assert.equal(s.active, false);
  assert.equal(s.outcome, 'failed');
});

test('RunState counts warnings and errors with their line numbers, keeping only the latest issues', () => {
  const s = new RunState('r', 'w', 0, [], 50);
  s.apply({ type: 'log-lines', runId: 'r', rank: 'DP0', lines: ['ok', 'ERROR 11-30 00:00:00 [a.py:1] boom', 'WARNING 11-30 00:00:00 [a.py:2] meh'] });
  const r = s.rank('DP0')!;
  assert.equal(r.errors, 1);
  assert.equal(r.warnings, 1);
  assert.deepEqual(r.issues.map((i) => [i.severity, i.no]), [['error', 2], ['warning', 3]]);
  const many = Array.from({ length: 250 }, (_, i) => `ERROR 11-30 00:00:00 [a.py:1] e${i}`);
  s.apply({ type: 'log-lines', runId: 'r', rank: 'DP0', lines: many });
  assert.equal(r.errors, 251);
  assert.equal(r.issues.length, MAX_ISSUES_PER_RANK);
  assert.equal(r.issues.at(-1)!.no, 253);
  assert.equal(r.lastLine, 'ERROR 11-30 00:00:00 [a.py:1] e249');
});

test('RunLogs keeps a bounded tail per rank with whole-log line numbers; documents strip ANSI', () => {
  const logs = new RunLogs(3);
  logs.append('DP0', ['\x1b[36m(EngineCore_DP0 pid=1)\x1b[0m one', 'two'], 10);
  logs.append('DP0', ['three', 'four', 'five'], 20);
  const t = logs.tail('DP0');
  assert.equal(t.total, 5);
  assert.deepEqual(t.lines.map((l) => [l.no, l.raw]), [[3, 'three'], [4, 'four'], [5, 'five']]);
  const first = new RunLogs(3);
  first.append('DP0', ['\x1b[36m(EngineCore_DP0 pid=1)\x1b[0m one'], 10);
  assert.equal(formatRankLog(first.tail('DP0'), { timestamps: false, what: 'DP0' }), '(EngineCore_DP0 pid=1) one', 'documents show lines without escapes');
  assert.equal(logs.tail('nope').total, 0);
});

test('rank document: a header names the file on disk only when the tail dropped lines; line numbers map into the document', () => {
  const logs = new RunLogs(2);
  logs.append('DP0', ['a', 'b'], 0);
  const small = logs.tail('DP0');
  assert.equal(formatRankLog(small, { timestamps: false, what: 'DP0', fullPath: '/logs/DP0.log' }), 'a\nb');
  assert.equal(documentLineOf(small, 2), 1);
  logs.append('DP0', ['c'], 0);
  const big = logs.tail('DP0');
  const text = formatRankLog(big, { timestamps: false, what: 'DP0', fullPath: '/logs/DP0.log' });
  assert.deepEqual(text.split('\n'), ['# DP0: showing the last 2 of 3 lines. The whole log is on disk: /logs/DP0.log', 'b', 'c']);
  assert.equal(documentLineOf(big, 3), 2);
  assert.equal(documentLineOf(big, 1), undefined, 'a line that left the tail is not in the document');
});

test('timestamps toggle prefixes each line with its arrival time', () => {
  const logs = new RunLogs(10);
  const at = new Date(2026, 10, 30, 5, 6, 7, 89).getTime();
  logs.append('DP0', ['hello'], at);
  assert.equal(formatRankLog(logs.tail('DP0'), { timestamps: true, what: 'DP0' }), '05:06:07.089 hello');
});

test('merged log: every line of every rank exactly once, in arrival order, with a parseable rank prefix', () => {
  const logs = new RunLogs(1000);
  const sent: [string, string][] = [];
  const ranks = ['main', 'DP0', 'DP1', 'DP10'];
  for (let i = 0; i < 200; i++) {
    const rank = ranks[(i * 7) % ranks.length]!;
    const lines = [`${rank} line ${i} | with a bar`, `  indented ${i}`];
    logs.append(rank, lines, i);
    for (const l of lines) sent.push([rank, l]);
  }
  const text = formatMergedLog(logs.mergedTail(), { timestamps: false, what: 'all ranks' });
  const parsed = text.split('\n').map((l) => parseMergedLine(l));
  assert.deepEqual(parsed.map((p) => [p!.rank, p!.text]), sent);
  const withTs = formatMergedLog(logs.mergedTail(), { timestamps: true, what: 'all ranks' }).split('\n');
  assert.deepEqual(parseMergedLine(withTs[0]!), { rank: sent[0]![0], text: sent[0]![1] });
});

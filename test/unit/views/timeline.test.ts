import assert from 'node:assert/strict';
import test from 'node:test';
import { Coalescer, type Clock } from '../../../src/core/views/coalesce';
import { RunState } from '../../../src/core/views/runState';
import { buildHistory, buildTimeline } from '../../../src/core/views/timeline';
import { restoreMs, warmupMs } from '../../../src/core/views/timings';
import type { RunEvent, StepRecord } from '../../../src/core/workflow/types';
import { TimelineModel, ToWebview, FromWebview } from '../../../src/shared/webviewProtocol';

function demoRun(): RunState {
  const s = new RunState('run-1', 'local-demo', 10_000, ['connect', 'start', 'warmup', 'capture', 'restore'], 100);
  const ev: RunEvent[] = [
    { type: 'step', runId: 'run-1', step: { name: 'connect', state: 'passed', startedAt: 10_000, endedAt: 10_200, verdict: 'agent 1 on host', evidence: [] } },
    { type: 'rank-marker', runId: 'run-1', rank: 'DP0', phase: 'load', at: 10_500, line: 'Snapshot mode enabled (watcher-driven signals)' },
    { type: 'rank-marker', runId: 'run-1', rank: 'DP1', phase: 'load', at: 10_600, line: 'Snapshot mode enabled (watcher-driven signals)' },
    { type: 'rank-marker', runId: 'run-1', rank: 'DP0', phase: 'warmup', at: 11_000, line: 'vLLM snapshot warmup starting' },
    { type: 'rank-marker', runId: 'run-1', rank: 'DP1', phase: 'warmup', at: 11_100, line: 'vLLM snapshot warmup starting' },
    { type: 'rank-marker', runId: 'run-1', rank: 'DP0', phase: 'warmup', at: 11_800, line: 'vLLM snapshot warmup complete' },
    { type: 'rank-marker', runId: 'run-1', rank: 'DP0', phase: 'pause', at: 12_000, line: 'Pausing model' },
    { type: 'rank-marker', runId: 'run-1', rank: 'DP1', phase: 'pause', at: 12_500, line: 'Pausing model' },
    { type: 'step', runId: 'run-1', step: { name: 'restore', state: 'passed', startedAt: 13_000, endedAt: 14_000, verdict: 'restored', evidence: [{ kind: 'timing', text: 'criu_restore', valueMs: 73 }, { kind: 'timing', text: 'restore (request to result)', valueMs: 900 }] } },
    { type: 'step', runId: 'run-1', step: { name: 'resume', state: 'passed', startedAt: 14_000, endedAt: 14_100, verdict: 'resumed', evidence: [{ kind: 'timing', text: 'restore time (restore request → resumed)', valueMs: 812 }] } },
  ];
  for (const e of ev) s.apply(e);
  return s;
}

test('timeline: one lane per rank, segments from each marker to the next, the last one open while running', () => {
  const run = demoRun();
  const m = buildTimeline(run, [], 15_000);
  assert.deepEqual(m.lanes.map((l) => l.rank), ['DP0', 'DP1']);
  const dp0 = m.lanes[0]!.segments;
  assert.deepEqual(dp0.map((s) => [s.phase, s.start, s.end, s.open]), [['load', 500, 1000, false], ['warmup', 1000, 2000, false], ['pause', 2000, 5000, true]]);
  assert.deepEqual(dp0[1]!.lines, ['vLLM snapshot warmup starting', 'vLLM snapshot warmup complete'], 'start and complete share one warm-up segment');
  assert.equal(m.span, 5000);
  assert.equal(m.active, true);
  assert.deepEqual(m.steps.map((s) => [s.name, s.state]), [['connect', 'passed'], ['start', 'pending'], ['warmup', 'pending'], ['capture', 'pending'], ['restore', 'passed']]);
  assert.equal(m.steps[0]!.durationMs, 200);
  assert.equal(m.restoreMs, 812, 'the restore time (request → resumed) wins over sub-timings and the step duration');
  assert.equal(m.warmupMs, 1500, 'without a warm-up step: first warm-up marker to the last rank paused');
  // The model is exactly what the protocol allows.
  assert.doesNotThrow(() => TimelineModel.parse(m));
  assert.doesNotThrow(() => ToWebview.parse({ type: 'model', model: m, history: m.history }));
});

test('timeline: a step\'s own phases (the snapshot agent\'s timing summary) become the sub-segments of its bar', () => {
  const run = demoRun();
  run.apply({ type: 'step', runId: 'run-1', step: { name: 'capture', state: 'passed', startedAt: 12_500, endedAt: 13_000, verdict: 'PodSnapshot llama-snap Ready', evidence: [
    { kind: 'timing', text: 'agent checkpoint duration', valueMs: 420 },
    { kind: 'timing', text: 'agent checkpoint phase cuda_checkpoint', valueMs: 110, phase: 'cuda_checkpoint' },
    { kind: 'timing', text: 'agent checkpoint phase criu_dump', valueMs: 300, phase: 'criu_dump' },
    { kind: 'timing', text: 'agent checkpoint phase unaccounted', valueMs: 10, phase: 'unaccounted' },
  ] } });
  const m = buildTimeline(run, [], 15_000);
  const capture = m.steps.find((s) => s.name === 'capture')!;
  assert.deepEqual(capture.parts, [{ name: 'cuda_checkpoint', ms: 110 }, { name: 'criu_dump', ms: 300 }, { name: 'unaccounted', ms: 10 }]);
  assert.equal(m.steps.find((s) => s.name === 'restore')!.parts, undefined, 'plain timings are not phases');
  assert.ok(TimelineModel.safeParse(m).success);
});

test('timeline: the main process\'s engine-wide markers move every data-parallel rank on', () => {
  const run = demoRun();
  run.apply({ type: 'rank-marker', runId: 'run-1', rank: 'main', phase: 'ready', at: 12_700, line: 'Ready for snapshot. Polling for sentinel in /c (snapshot-complete or restore-complete)' });
  run.apply({ type: 'rank-marker', runId: 'run-1', rank: 'main', phase: 'load', at: 10_100, line: 'Fetching model m in a subprocess' });
  const m = buildTimeline(run, [], 15_000);
  assert.deepEqual(m.lanes.map((l) => l.rank), ['main', 'DP0', 'DP1']);
  const dp1 = m.lanes.find((l) => l.rank === 'DP1')!.segments;
  assert.deepEqual(dp1.map((s) => [s.phase, s.inherited]), [['load', false], ['warmup', false], ['pause', false], ['ready', true]]);
  assert.match(dp1[3]!.lines[0]!, /^main: Ready for snapshot/);
  assert.equal(dp1[2]!.end, 2700, 'the rank\'s pause ends when main says ready');
  // main's own load marker is not engine-wide: it stays on main's lane only.
  assert.ok(!dp1.some((s) => s.lines.some((l) => l.includes('Fetching'))));
});

test('timeline after the run ended: segments close at the end', () => {
  const run = demoRun();
  run.apply({ type: 'run-ended', runId: 'run-1', at: 16_000, outcome: 'passed' });
  const m = buildTimeline(run, [], 99_999);
  assert.equal(m.span, 6000);
  assert.ok(m.lanes.every((l) => l.segments.every((s) => !s.open)));
  assert.equal(m.outcome, 'passed');
});

test('timings: restore from evidence or step duration; warm-up from the step when it ran', () => {
  const steps: StepRecord[] = [
    { name: 'restore', state: 'passed', startedAt: 0, endedAt: 1500, evidence: [] },
    { name: 'warmup', state: 'passed', startedAt: 100, endedAt: 400, evidence: [] },
  ];
  assert.equal(restoreMs(steps), 1500);
  assert.equal(restoreMs([{ name: 'restore', state: 'passed', startedAt: 0, endedAt: 1500, evidence: [{ kind: 'timing', text: 'criu_restore', valueMs: 5 }, { kind: 'timing', text: 'restore (request to result)', valueMs: 1400 }] }]), 1400);
  assert.equal(warmupMs([{ name: 'warmup', state: 'passed', startedAt: 0, endedAt: 900, evidence: [{ kind: 'timing', text: 'warm-up (first start to last completion)', valueMs: 601 }] }]), 601);
  assert.equal(warmupMs(steps), 300);
  assert.equal(restoreMs([{ name: 'restore', state: 'skipped', startedAt: 0, endedAt: 5, evidence: [] }]), undefined);
  assert.equal(restoreMs([]), undefined);
});

test('history: past runs oldest first, the current run last and marked, limited', () => {
  const run = demoRun();
  const past = Array.from({ length: 30 }, (_, i) => ({
    runId: `p${i}`,
    startedAt: 1000 + i,
    outcome: i % 3 ? 'passed' : 'failed',
    steps: [{ name: 'restore', state: 'passed', startedAt: 0, endedAt: 100 + i, evidence: [] }] as StepRecord[],
    restoreMs: i === 29 ? 42 : undefined,
  }));
  const h = buildHistory([...past].reverse(), run, 20);
  assert.equal(h.length, 20);
  assert.equal(h.at(-1)!.runId, 'run-1');
  assert.equal(h.at(-1)!.current, true);
  assert.equal(h.at(-2)!.runId, 'p29');
  assert.equal(h.at(-2)!.restoreMs, 42);
  assert.equal(h.at(-3)!.restoreMs, 128);
  assert.ok(h.slice(0, -1).every((p, i, a) => i === 0 || a[i - 1]!.startedAt <= p.startedAt));
});

test('webview messages from the panel are validated: unknown or malformed ones are rejected', () => {
  assert.equal(FromWebview.safeParse({ type: 'ready' }).success, true);
  assert.equal(FromWebview.safeParse({ type: 'rendered', runId: 'r', lanes: ['DP0'], segments: 3, steps: 5, historyBars: 0 }).success, true);
  assert.equal(FromWebview.safeParse({ type: 'rendered', runId: 'r', lanes: 'DP0', segments: 3, steps: 5, historyBars: 0 }).success, false);
  assert.equal(FromWebview.safeParse({ type: 'runShell', cmd: 'rm -rf /' }).success, false);
  assert.equal(FromWebview.safeParse({ type: 'openRankLog', rank: 'x'.repeat(500) }).success, false);
});

class FakeClock implements Clock {
  t = 0;
  private timers: { at: number; f: () => void; id: number }[] = [];
  private next = 1;
  now(): number {
    return this.t;
  }
  setTimeout(f: () => void, ms: number): unknown {
    const id = this.next++;
    this.timers.push({ at: this.t + ms, f, id });
    return id;
  }
  clearTimeout(h: unknown): void {
    this.timers = this.timers.filter((x) => x.id !== h);
  }
  advance(ms: number): void {
    const end = this.t + ms;
    for (;;) {
      this.timers.sort((a, b) => a.at - b.at);
      const due = this.timers[0];
      if (!due || due.at > end) break;
      this.timers.shift();
      this.t = due.at;
      due.f();
    }
    this.t = end;
  }
}

test('Coalescer: a flood of requests fires at most once per interval', () => {
  const clock = new FakeClock();
  let n = 0;
  const c = new Coalescer(() => n++, 300, { clock });
  c.request();
  clock.advance(0);
  assert.equal(n, 1, 'the first request after a quiet time runs at once');
  for (let i = 0; i < 1000; i++) {
    c.request();
    clock.advance(1);
  }
  // 1000 ms of requests at 1 per ms: at most ceil(1000/300)+1 runs.
  assert.ok(n <= 5 && n >= 4, `fired ${n} times`);
  clock.advance(1000);
  const settled = n;
  clock.advance(1000);
  assert.equal(n, settled, 'no request, no fire');
});

test('Coalescer: nothing fires while paused; a request made while hidden runs when shown', () => {
  const clock = new FakeClock();
  let n = 0;
  const c = new Coalescer(() => n++, 300, { clock, paused: true });
  for (let i = 0; i < 100; i++) c.request();
  clock.advance(5000);
  assert.equal(n, 0);
  c.setPaused(false);
  clock.advance(0);
  assert.equal(n, 1);
  c.dispose();
  c.request();
  clock.advance(5000);
  assert.equal(n, 1, 'disposed: never again');
});

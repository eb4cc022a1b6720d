import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { RunRecordSchema } from '../../../src/core/workflow/records';
import { runWorkflow } from '../../../src/core/workflow/runner';
import { WorkerSession } from '../../../src/core/workflow/session';
import type { RunEvent, StepName, StepRecord } from '../../../src/core/workflow/types';
import { startFakeOpenAi } from './support/fakeOpenAi';
import { profile, ScriptedConnection, standinCaptureExit, standinRestore, standinStart, type Script } from './support/scripted';

type Fake = Awaited<ReturnType<typeof startFakeOpenAi>>;
let server: Fake;
before(async () => {
  server = await startFakeOpenAi();
});
after(() => server.close());

function script(over: Partial<Script> = {}): Script {
  return { afterStart: standinStart(), afterCapture: standinCaptureExit('osexit'), afterRestore: standinRestore(server.url), ...over };
}

async function run(s: Script, o: { profileOver?: Parameters<typeof profile>[0]; signal?: AbortSignal; steps?: StepName[]; findExitCause?: () => Promise<never[] | { kind: 'diagnostic'; text: string; location: { file: string; line: number } }[]> } = {}) {
  const conn = new ScriptedConnection(profile(o.profileOver), s);
  const session = new WorkerSession(conn.profile, conn);
  const events: RunEvent[] = [];
  const result = await runWorkflow(session, { emit: (e) => events.push(e), signal: o.signal, steps: o.steps, findExitCause: o.findExitCause });
  await session.dispose();
  const step = (n: StepName): StepRecord => result.record.steps.find((x) => x.name === n)!;
  return { conn, events, record: result.record, step };
}

describe('workflow state machine on recorded sequences', () => {
  it('a clean run passes every step, measures restore and smoke, and stops what it started', async () => {
    const { record, step, events, conn } = await run(script());
    for (const s of record.steps) assert.equal(s.state, 'passed', `${s.name}: ${s.state} — ${s.verdict}`);
    assert.equal(record.outcome, 'passed');
    assert.match(step('warmup').verdict!, /every rank \(DP0, DP1\)/);
    assert.ok(record.metrics.restoreMs! >= 0 && record.metrics.restoreMs! < 5000);
    assert.ok(step('resume').evidence.some((e) => e.kind === 'timing' && /restore time/.test(e.text)));
    assert.equal(server.requests.length >= 5, true);
    assert.match(step('smoke').verdict!, /5 of 5 requests answered; first TTFT \d+ ms/);
    assert.match(step('smoke').verdict!, /cached_tokens=0 on the first request/);
    assert.ok(step('sourceExit').verdict!.includes('status 0'));
    // Every step change was an event, the run started and ended once, markers per rank were seen.
    assert.equal(events.filter((e) => e.type === 'run-started').length, 1);
    assert.deepEqual(events.filter((e) => e.type === 'run-ended').map((e) => (e as { outcome: string }).outcome), ['passed']);
    assert.ok(events.filter((e) => e.type === 'step').length >= record.steps.length * 2);
    const markers = events.filter((e) => e.type === 'rank-marker') as Extract<RunEvent, { type: 'rank-marker' }>[];
    assert.ok(markers.some((m) => m.rank === 'DP1' && m.phase === 'warmup'));
    assert.ok(markers.some((m) => m.rank === 'main' && m.phase === 'resume'));
    assert.ok(events.some((e) => e.type === 'log-lines' && e.rank === 'DP0'));
    assert.ok(conn.stopped >= 1, 'the worker is stopped at the end of a full run');
    assert.ok(RunRecordSchema.safeParse(record).success);
  });

  it('a rank without warm-up is a warning that says what restored workers pay', async () => {
    const { record, step } = await run(script({ afterStart: standinStart({ skipWarmupRank: 1 }) }));
    assert.equal(step('warmup').state, 'warned');
    assert.match(step('warmup').verdict!, /no warm-up on DP1/);
    assert.match(step('warmup').verdict!, /first request after every restore is slow or incoherent/);
    assert.match(step('warmup').verdict!, /CUDA graphs/);
    assert.ok(step('warmup').evidence.some((e) => e.rank === 'DP0' && /warmup complete/.test(e.text)));
    assert.equal(record.outcome, 'passed', 'a warning does not fail the run');
  });

  it('a SIGSEGV after capture fails source exit with the log tail and the SNAP001 link', async () => {
    const { record, step, conn } = await run(script({ afterCapture: standinCaptureExit('systemexit') }), {
      findExitCause: async () => [{ kind: 'diagnostic', text: 'SNAP001 raise SystemExit(0) on the capture path', location: { file: '/ws/components/src/dynamo/vllm/snapshot.py', line: 41 } }],
    });
    const se = step('sourceExit');
    assert.equal(se.state, 'failed');
    assert.match(se.verdict!, /killed by SIGSEGV/);
    assert.match(se.verdict!, /os\._exit\(0\)/);
    assert.ok(se.evidence.some((e) => e.kind === 'exit' && /SIGSEGV/.test(e.text)));
    assert.ok(se.evidence.some((e) => e.kind === 'log' && /raising SystemExit/.test(e.text)), 'log tail is evidence');
    assert.deepEqual(se.evidence.find((e) => e.kind === 'diagnostic')?.location, { file: '/ws/components/src/dynamo/vllm/snapshot.py', line: 41 });
    for (const n of ['restore', 'resume', 'smoke'] as const) assert.equal(step(n).state, 'skipped');
    assert.equal(record.outcome, 'failed');
    assert.ok(conn.stopped >= 1);
    assert.ok(!conn.calls.includes('restore'));
  });

  it('a capture failure fails capture with the agent error and stops the source', async () => {
    const { record, step, conn } = await run(script({ capture: { result: { ok: false, mode: 'criu', error: 'criu dump failed (exit 1): sockets: Can\'t get 1:16 opt', timingsMs: { criu_dump: 120 } } } }));
    assert.equal(step('capture').state, 'failed');
    assert.match(step('capture').verdict!, /criu capture failed: criu dump failed/);
    assert.ok(step('capture').evidence.some((e) => e.kind === 'timing' && e.text === 'criu_dump' && e.valueMs === 120));
    assert.equal(step('sourceExit').state, 'skipped');
    assert.equal(record.outcome, 'failed');
    assert.ok(conn.stopped >= 1);
  });

  it('a hung warm-up fails after timeouts.warmupSeconds and names the rank', async () => {
    const t0 = Date.now();
    const { record, step, conn } = await run(script({ afterStart: standinStart({ warmupHangRank: 1 }) }), { profileOver: { timeouts: { warmupSeconds: 0.3 } } });
    assert.equal(step('warmup').state, 'failed');
    assert.match(step('warmup').verdict!, /did not finish within timeouts\.warmupSeconds = 300 ms \(still warming up: DP1\)/);
    assert.ok(Date.now() - t0 < 3000);
    assert.equal(step('capture').state, 'skipped');
    assert.equal(record.outcome, 'failed');
    assert.ok(conn.stopped >= 1);
    assert.equal(conn.capturesAborted, 1);
  });

  it('no ready-for-snapshot within readySeconds fails and names the setting', async () => {
    const { step } = await run(script({ afterStart: standinStart().slice(0, 3) }), { profileOver: { timeouts: { readySeconds: 0.2 } } });
    assert.equal(step('warmup').state, 'failed');
    assert.match(step('warmup').verdict!, /ready-for-snapshot did not happen within 200 ms \(profile timeouts\.readySeconds\)/);
  });

  it('a warm-up timeout that is not finite and positive is rejected with a clear message', async () => {
    const p = profile();
    (p.timeouts as { warmupSeconds: number }).warmupSeconds = Number.POSITIVE_INFINITY;
    const conn = new ScriptedConnection(p, script());
    const session = new WorkerSession(p, conn);
    const { record } = await runWorkflow(session, { steps: ['connect', 'start', 'warmup'] });
    await session.dispose();
    const w = record.steps.find((s) => s.name === 'warmup')!;
    assert.equal(w.state, 'failed');
    assert.match(w.verdict!, /timeouts\.warmupSeconds .* must be a finite number of seconds greater than 0 \(got Infinity\)/);
  });

  it('cancelling mid-run records the run as cancelled and stops the source', async () => {
    const ctl = new AbortController();
    const hang = script({ afterStart: standinStart({ warmupHangRank: 0 }) });
    setTimeout(() => ctl.abort(), 80);
    const { record, step, conn } = await run(hang, { signal: ctl.signal });
    assert.equal(step('warmup').state, 'cancelled');
    assert.equal(step('capture').state, 'skipped');
    assert.equal(record.outcome, 'cancelled');
    assert.ok(conn.stopped >= 1);
    assert.equal(conn.capturesAborted, 1, 'the capture request sent ahead of readiness is withdrawn');
  });

  it('a subset of steps runs its prerequisites and skips optional checks not asked for', async () => {
    const { step, conn } = await run(script(), { steps: ['capture', 'sourceExit'] });
    assert.equal(step('preflight').state, 'skipped');
    assert.equal(step('warmup').state, 'skipped');
    assert.equal(step('start').state, 'passed');
    assert.equal(step('sourceExit').state, 'passed');
    assert.equal(step('restore').state, 'skipped');
    assert.ok(!conn.calls.includes('restore'));
  });

  it('an endpoint reported before the resume line still measures restore to the resume line', async () => {
    const r = standinRestore(server.url);
    const reordered: typeof r = [r[2]!, [30, r[0]![1]], r[1]!];
    const { step, record } = await run(script({ afterRestore: reordered }));
    assert.equal(step('resume').state, 'passed', step('resume').verdict);
    assert.match(step('resume').verdict!, /worker resumed .* after the restore request \(main\)/);
    assert.equal(record.outcome, 'passed');
  });

  it('a worker that serves without ever logging a resume line is a warning, not a failure', async () => {
    const quiet = standinRestore(server.url).filter(([, e]) => e.type !== 'log');
    const { step } = await run(script({ afterRestore: quiet }));
    assert.equal(step('resume').state, 'warned');
    assert.match(step('resume').verdict!, /no "Resuming model after restore" line/);
  });

  it('a session carries a started source from one run to the next (palette commands)', async () => {
    const conn = new ScriptedConnection(profile(), script());
    const session = new WorkerSession(conn.profile, conn);
    const first = await runWorkflow(session, { steps: ['connect', 'preflight', 'start', 'warmup', 'ready'], keepRunning: true });
    assert.equal(first.record.outcome, 'passed');
    assert.equal(session.stage, 'started');
    assert.equal(conn.stopped, 0);
    const second = await runWorkflow(session, { steps: ['warmup', 'ready', 'capture', 'sourceExit'], keepRunning: true });
    assert.equal(second.record.steps.find((s) => s.name === 'connect')!.state, 'skipped');
    assert.equal(second.record.steps.find((s) => s.name === 'warmup')!.state, 'passed');
    assert.equal(second.record.steps.find((s) => s.name === 'sourceExit')!.state, 'passed');
    assert.equal(session.stage, 'exited');
    const third = await runWorkflow(session, { steps: ['restore', 'resume', 'smoke'] });
    assert.equal(third.record.outcome, 'passed', JSON.stringify(third.record.steps.map((s) => [s.name, s.state, s.verdict])));
    assert.equal(conn.calls.filter((c) => c === 'start').length, 1);
    await session.dispose();
  });
});

describe('run records from the runner', () => {
  it('writes the record where asked, and says so when it cannot', async () => {
    const fs = await import('node:fs');
    const os = await import('node:os');
    const path = await import('node:path');
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dsw-runner-rec-'));
    const conn = new ScriptedConnection(profile(), { afterStart: standinStart(), afterCapture: standinCaptureExit('osexit') });
    const session = new WorkerSession(conn.profile, conn);
    const ok = await runWorkflow(session, { steps: ['connect', 'capture', 'sourceExit'], recordsDir: dir, keepRecords: 5 });
    assert.ok(ok.file && fs.existsSync(ok.file));
    assert.match(ok.record.steps.find((s) => s.name === 'report')!.verdict!, /run record .*run-.*\.json/);
    const blocked = path.join(dir, 'not-a-dir');
    fs.writeFileSync(blocked, 'x');
    const bad = await runWorkflow(session, { steps: ['connect', 'capture', 'sourceExit'], recordsDir: blocked });
    await session.dispose();
    assert.equal(bad.file, undefined);
    assert.match(bad.saveError!, /could not save the run record/);
    const report = bad.record.steps.find((s) => s.name === 'report')!;
    assert.equal(report.state, 'warned');
    assert.equal(bad.record.outcome, 'passed', 'a record that could not be saved does not fail the run');
  });
});

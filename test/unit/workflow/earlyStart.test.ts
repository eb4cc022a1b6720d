/**
 * The source start sent together with the hello (runner.ts `startEarly`): overlapped where the hello
 * cannot veto it, never in criu mode or before a first ssh connection, and stopped when the run ends
 * before its start step (a failed connect).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { HelloEvent } from '../../../src/core/protocol/agentEvents';
import { runWorkflow } from '../../../src/core/workflow/runner';
import { WorkerSession } from '../../../src/core/workflow/session';
import { profile, ScriptedConnection, standinCaptureExit, standinStart, type Script } from './support/scripted';

const script = (): Script => ({ afterStart: standinStart(), afterCapture: standinCaptureExit('osexit') });
const steps = ['connect', 'preflight', 'start', 'warmup', 'ready', 'capture', 'sourceExit'] as const;

class FailingHello extends ScriptedConnection {
  override async hello(): Promise<HelloEvent> {
    this.calls.push('hello');
    await new Promise((r) => setTimeout(r, 20));
    throw new Error('agent hello failed: python3 not found');
  }
}

describe('start sent together with the hello', () => {
  it('protocol mode on a local worker: the start goes out before the hello answers, the run passes', async () => {
    const conn = new ScriptedConnection(profile(), script());
    const session = new WorkerSession(conn.profile, conn);
    const { record } = await runWorkflow(session, { steps: [...steps] });
    await session.dispose();
    assert.equal(record.outcome, 'passed', JSON.stringify(record.steps.map((s) => [s.name, s.state, s.verdict])));
    assert.deepEqual(conn.calls.slice(0, 2), ['start', 'hello']);
    assert.equal(conn.calls.filter((c) => c === 'start').length, 1);
  });

  it('criu mode and a first ssh connection wait for the hello', async () => {
    for (const over of [{ captureMode: 'criu' as const }, { transport: { kind: 'ssh' as const, host: 'gpu-box' } }]) {
      const conn = new ScriptedConnection(profile(over), { ...script(), hello: { criu: { present: true, path: '/usr/sbin/criu' } } });
      const session = new WorkerSession(conn.profile, conn);
      await runWorkflow(session, { steps: [...steps] });
      await session.dispose();
      assert.equal(conn.calls[0], 'hello', JSON.stringify(over));
    }
  });

  it('a failed connect stops the source that was started alongside', async () => {
    const conn = new FailingHello(profile(), script());
    const session = new WorkerSession(conn.profile, conn);
    const { record } = await runWorkflow(session, { steps: [...steps] });
    await session.dispose();
    const step = (n: string) => record.steps.find((s) => s.name === n)!;
    assert.equal(step('connect').state, 'failed');
    assert.equal(step('start').state, 'skipped');
    assert.equal(conn.stopped, 1);
    assert.equal(conn.running, false);
    assert.ok(step('report').evidence.some((e) => /stopped the source started alongside the hello/.test(e.text)));
  });
});

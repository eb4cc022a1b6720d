/**
 * Reattach after a window reload, with the real local connection and the stand-in engine: a source
 * started by one session (Start Source) is let go while it is still loading and warming up (what
 * deactivate does now), a new session with a new connection finds it again by run id, follows from
 * the saved offsets — every byte of the engine's log exactly once — and the next command (Warm-up and
 * Capture) judges it with the markers seen before the reload.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, test } from 'node:test';
import { localDemoProfile } from '../../../src/core/settings/builtinProfiles';
import { WorkerProfile } from '../../../src/core/settings/workerProfile';
import { reattachSource, saveSource } from '../../../src/core/workflow/reattach';
import { runWorkflow } from '../../../src/core/workflow/runner';
import { WorkerSession } from '../../../src/core/workflow/session';
import { createConnection } from '../../../src/transport/index';
import { repoRoot, scratch, testEnv } from '../transport/helpers';

const sessions: WorkerSession[] = [];
after(async () => {
  for (const s of sessions) await s.dispose().catch(() => undefined);
});

function newSession(scratchDir: string): { session: WorkerSession; received: Map<string, string> } {
  const profile = WorkerProfile.parse({ ...localDemoProfile(repoRoot(), ['--load-seconds', '0.6', '--warmup-seconds', '0.6', '--no-color']), name: 'reattach-demo' });
  const session = new WorkerSession(profile, createConnection(profile, testEnv(scratchDir)));
  sessions.push(session);
  const received = new Map<string, string>();
  session.listen({ onAgentEvent: (e) => e.type === 'log' && received.set(e.file, (received.get(e.file) ?? '') + e.data) });
  return { session, received };
}

test('a source kept running survives its session; a new session reattaches and resumes the log by offset', { timeout: 60_000 }, async () => {
  const dir = scratch('reattach');
  const first = newSession(dir);
  const started = await runWorkflow(first.session, { steps: ['connect', 'start'], keepRunning: true });
  assert.equal(started.record.outcome, 'passed', JSON.stringify(started.record.steps.map((s) => [s.name, s.state, s.verdict])));
  await new Promise((r) => setTimeout(r, 400)); // some lines arrive, the engine is still loading / warming up
  const saved = saveSource(first.session);
  assert.ok(saved, 'a started source is saved');
  assert.equal(saved.stage, 'started');
  const pgid = saved.handle.pgid;
  // The reload: the old window lets go (follow ends, connection closes) without stopping the source.
  await first.session.detach();
  const json = JSON.parse(JSON.stringify(saved)) as unknown; // what workspaceState keeps
  process.kill(-pgid, 0); // still alive
  await new Promise((r) => setTimeout(r, 500)); // lines written while nobody follows

  const second = newSession(dir);
  const r = await reattachSource(second.session, json, AbortSignal.timeout(20_000));
  assert.equal(r.kind, 'reattached');
  assert.equal(second.session.stage, 'started');
  assert.equal(second.session.reattached, true);
  const run = await runWorkflow(second.session, { steps: ['warmup', 'ready', 'capture', 'sourceExit'] });
  const step = (n: string) => run.record.steps.find((s) => s.name === n)!;
  for (const n of ['warmup', 'ready', 'capture', 'sourceExit']) assert.equal(step(n).state, 'passed', `${n}: ${step(n).verdict}`);
  assert.match(step('warmup').verdict!, /every rank \(DP0, DP1\)/);

  // Every byte of every log file exactly once across the two sessions, in order.
  const logs = path.join(saved.handle.runDir, 'logs');
  for (const f of fs.readdirSync(logs)) {
    const whole = fs.readFileSync(path.join(logs, f), 'utf8');
    assert.equal((first.received.get(f) ?? '') + (second.received.get(f) ?? ''), whole, `${f}: lost or repeated bytes`);
  }
  assert.ok((first.received.get('engine.log') ?? '').length > 0 && (second.received.get('engine.log') ?? '').length > 0, 'both sessions saw part of the log');
});

test('a saved source that is gone, or a changed profile, is not reattached', { timeout: 30_000 }, async () => {
  const dir = scratch('reattach-gone');
  const first = newSession(dir);
  await runWorkflow(first.session, { steps: ['connect', 'start'], keepRunning: true });
  const saved = JSON.parse(JSON.stringify(saveSource(first.session))) as { profile: string };
  await first.session.stopSource(500);
  const second = newSession(dir);
  const r = await reattachSource(second.session, saved, AbortSignal.timeout(20_000));
  assert.equal(r.kind, 'gone');
  assert.equal(second.session.handle, undefined);
  const changed = await reattachSource(second.session, { ...saved, profile: saved.profile.replace('reattach-demo', 'other') }, AbortSignal.timeout(1000));
  assert.equal(changed.kind, 'profile-changed');
  assert.equal((await reattachSource(second.session, { version: 99 }, AbortSignal.timeout(1000))).kind, 'invalid');
});

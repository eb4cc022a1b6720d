import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseSteps, planRun } from '../../../src/core/workflow/plan';
import { settingsGetter } from '../../../src/core/workflow/profileFile';
import { parseJsonc, stripJsonc } from '../../../src/shared/jsonc';
import { judgePreflight } from '../../../src/core/workflow/steps/connect';
import { describeExit, signalName } from '../../../src/core/workflow/exitVerdict';
import { helloEvent, profile } from './support/scripted';

describe('run planning', () => {
  it('runs everything by default', () => {
    assert.deepEqual(planRun(undefined, 'idle').run, ['connect', 'preflight', 'start', 'warmup', 'ready', 'capture', 'sourceExit', 'restore', 'resume', 'smoke', 'report']);
  });
  it('adds prerequisites and leaves out optional checks not asked for', () => {
    assert.deepEqual(planRun(['restore'], 'idle').run, ['connect', 'start', 'ready', 'capture', 'sourceExit', 'restore', 'report']);
  });
  it('continues a session from where it is', () => {
    assert.deepEqual(planRun(['restore', 'resume'], 'exited'), { run: ['restore', 'resume', 'report'], fresh: false });
    assert.deepEqual(planRun(['warmup', 'ready', 'capture', 'sourceExit'], 'started').run, ['warmup', 'ready', 'capture', 'sourceExit', 'report']);
  });
  it('asks for a fresh source when the request starts before the session stage', () => {
    assert.equal(planRun(['capture'], 'exited').fresh, true);
    assert.equal(planRun(undefined, 'restored').fresh, true);
  });
  it('parses --steps and rejects unknown names', () => {
    assert.deepEqual(parseSteps('connect, preflight'), { steps: ['connect', 'preflight'] });
    assert.match(parseSteps('connect,warmpu').error!, /unknown step\(s\) "warmpu"/);
  });
});

describe('settings files for the CLI', () => {
  it('reads VS Code settings.json with comments and trailing commas', () => {
    const text = '{\n // c\n "dynamoSnapshot.workers": [ {"name": "a//b", "command": ["x"],}, ], /* block */ "s": "http://x",\n}';
    assert.equal(stripJsonc('{"a": "//not a comment",}'), '{"a": "//not a comment"}');
    const v = parseJsonc(text) as Record<string, unknown>;
    assert.deepEqual(settingsGetter(v)('workers'), [{ name: 'a//b', command: ['x'] }]);
    assert.equal(v.s, 'http://x');
  });
  it('accepts the nested shape too', () => {
    assert.equal(settingsGetter({ dynamoSnapshot: { runs: { keep: 3 } } })('runs.keep'), 3);
  });
});

describe('preflight and exit verdict helpers', () => {
  it('criu capture needs CRIU, a passing criu check and root', () => {
    const p = profile({ captureMode: 'criu' });
    const v = judgePreflight(p, helloEvent({ isRoot: false, criu: { present: true, check: { ok: false, message: 'vdso: Unexpected rt vDSO area bounds' } } }));
    assert.equal(v.state, 'failed');
    assert.match(v.verdict, /criu check failed: vdso/);
    assert.match(v.verdict, /need root/);
    assert.equal(judgePreflight(profile(), helloEvent()).state, 'passed');
  });
  it('names signals however the exit reports them', () => {
    assert.equal(signalName({ code: null, signal: 'SIGSEGV' }), 'SIGSEGV');
    assert.equal(signalName({ code: null, signal: '6' }), 'SIGABRT');
    assert.equal(signalName({ code: 139, signal: null }), 'SIGSEGV');
    assert.equal(signalName({ code: 1, signal: null }), undefined);
    assert.equal(describeExit({ code: 3, signal: null }), 'exited with status 3');
  });
});

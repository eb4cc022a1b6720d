/**
 * Verdicts that depend on which snapshot agent generation ran, and the driver Dynamo asks for:
 * after Snapshot #101 the dump ends the source, so its SIGKILL is success, not a crash; a driver
 * below 580 warns in criu mode (docs/compatibility.md).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { protocolGeneration } from '../../../src/core/settings/workerProfile';
import { judgeSourceExit } from '../../../src/core/workflow/exitVerdict';
import { judgePreflight } from '../../../src/core/workflow/steps/connect';
import { helloEvent, profile } from './support/scripted';

const exit = (code: number | null, signal: string | null) => ({ v: 1 as const, t: 1, type: 'process_exit' as const, pid: 7, role: 'source' as const, code, signal });

describe('source exit by generation', () => {
  it('kill generation: SIGKILL by the capture passes, saying its own exit path was not exercised', () => {
    const v = judgeSourceExit(exit(null, 'SIGKILL'), [], 5, true);
    assert.equal(v.state, 'passed');
    assert.match(v.verdict, /killed by SIGKILL by the capture.*Snapshot #101/);
  });
  it('kill generation: a SIGSEGV is still a failure', () => {
    assert.equal(judgeSourceExit(exit(null, 'SIGSEGV'), ['x'], 5, true).state, 'failed');
  });
  it('release generation: SIGKILL fails as before', () => {
    assert.equal(judgeSourceExit(exit(null, 'SIGKILL'), [], 5, false).state, 'failed');
  });
  it('auto plays the release generation', () => {
    assert.equal(protocolGeneration(profile()), 'release');
    assert.equal(protocolGeneration(profile({ snapshotProtocol: 'kill' })), 'kill');
  });
});

describe('driver version in criu mode', () => {
  const gpu = [{ index: 0, name: 'H200', memoryTotalMiB: 143771 }];
  const hello = (driverVersion: string) => helloEvent({ gpus: gpu, driverVersion, cudaDriverCheckpointApi: true, criu: { present: true, check: { ok: true, message: 'Looks good.' } } });
  it('575 warns: Dynamo asks for 580', () => {
    const v = judgePreflight(profile({ captureMode: 'criu' }), hello('575.57.08'));
    assert.equal(v.state, 'warned');
    assert.match(v.verdict, /older than the 580 Dynamo Snapshot asks for/);
  });
  it('580 passes', () => assert.equal(judgePreflight(profile({ captureMode: 'criu' }), hello('580.65.06')).state, 'passed'));
});

/**
 * The warm-up verdict on upstream's shapes: vLLM and SGLang log the warm-up once from the main process
 * for every local DP rank (ai-dynamo/dynamo vllm/snapshot.py; ai-dynamo 1.6.1 sglang/snapshot.py), so that
 * counts for every rank and a rank's own lines are extra evidence only; the per-rank shape still needs
 * every rank; a non-generation SGLang model needs no warm-up.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { RankTracker } from '../../../src/core/workflow/ranks';
import { judgeWarmup, warmupPending } from '../../../src/core/workflow/warmupVerdict';

const dyn = (msg: string) => `2026-10-01T12:00:00.000000Z  INFO snapshot._warmup_engine: ${msg}`;

describe('warm-up verdict', () => {
  it('vLLM DP=2: one main-process warm-up passes for DP0 and DP1, with no line of theirs', () => {
    const t = new RankTracker('vllm');
    t.push('\x1b[1;36m(EngineCore_DP0 pid=1)\x1b[0;0m INFO 10-01 12:00:00 [core.py:1] Model loaded', 1);
    t.push('\x1b[1;36m(EngineCore_DP1 pid=2)\x1b[0;0m INFO 10-01 12:00:00 [core.py:1] Model loaded', 2);
    t.push(dyn('vLLM snapshot warmup starting'), 10);
    t.push(dyn('vLLM snapshot warmup complete'), 510);
    const expected = t.expectedRanks(2);
    assert.deepEqual(warmupPending(t, expected), []);
    const v = judgeWarmup(t, expected);
    assert.equal(v.state, 'passed', v.verdict);
    assert.match(v.verdict, /by the main process for every rank \(DP0, DP1\)/);
    assert.ok(v.evidence.some((e) => e.rank === 'DP1' && /logged nothing of its own during the warm-up \(not required/.test(e.text)));
    assert.deepEqual(t.all().map((r) => r.id), ['main', 'DP0', 'DP1']);
  });

  it('SGLang DP=2: the schedulers\' lines during the warm-up are shown as per-rank evidence', () => {
    const t = new RankTracker('sglang');
    t.push(dyn('SGLang snapshot warmup starting'), 10);
    t.push('[2026-10-01 12:00:00 DP0] Prefill batch, #new-seq: 1', 11);
    t.push('[2026-10-01 12:00:00 DP1] Prefill batch, #new-seq: 1', 12);
    t.push(dyn('SGLang snapshot warmup complete'), 100);
    const v = judgeWarmup(t, t.expectedRanks(2));
    assert.equal(v.state, 'passed', v.verdict);
    for (const r of ['DP0', 'DP1']) assert.ok(v.evidence.some((e) => e.rank === r && /1 line\(s\) during the warm-up/.test(e.text)), r);
  });

  it('the per-rank shape still needs every rank', () => {
    const t = new RankTracker('vllm');
    t.push('(EngineCore_DP0 pid=1) vLLM snapshot warmup complete', 1);
    t.push('(EngineCore_DP1 pid=2) Model loaded', 2);
    const v = judgeWarmup(t, t.expectedRanks(2));
    assert.equal(v.state, 'warned');
    assert.match(v.verdict, /no warm-up on DP1/);
  });

  it('no warm-up at all warns (ai-dynamo 1.6.1 vllm/snapshot.py has none)', () => {
    const t = new RankTracker('vllm');
    t.push('(EngineCore_DP0 pid=1) Model loaded', 1);
    t.push('(EngineCore_DP1 pid=2) Model loaded', 2);
    assert.equal(judgeWarmup(t, t.expectedRanks(2)).state, 'warned');
  });

  it('a non-generation SGLang model needs no warm-up', () => {
    const t = new RankTracker('sglang');
    t.push('[2026-10-01 12:00:00 DP0] x', 1);
    t.push('[2026-10-01 12:00:00 DP1] x', 2);
    t.push(dyn('Skipping SGLang snapshot warmup for non-generation model'), 3);
    const v = judgeWarmup(t, t.expectedRanks(2));
    assert.equal(v.state, 'passed', v.verdict);
    assert.match(v.verdict, /non-generation model/);
  });
});

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { completionsUrl, judgeSmoke, resolveSmokeUrl, runSmokeRequests } from '../../../src/core/workflow/smoke';
import { startFakeOpenAi } from './support/fakeOpenAi';

const base = { prompt: 'The capital of France is', maxTokens: 8, requests: 3, timeoutSeconds: 5, signal: new AbortController().signal };

describe('smoke requests', () => {
  it('substitutes ${port} from the endpoint and builds the completions URL', () => {
    assert.deepEqual(resolveSmokeUrl('http://127.0.0.1:${port}', 'http://127.0.0.1:43123'), { url: 'http://127.0.0.1:43123' });
    assert.deepEqual(resolveSmokeUrl('http://gpu-box:8000', undefined), { url: 'http://gpu-box:8000' });
    assert.match(resolveSmokeUrl('http://127.0.0.1:${port}', undefined).error!, /reported no endpoint/);
    assert.equal(completionsUrl('http://h:1/'), 'http://h:1/v1/completions');
    assert.equal(completionsUrl('http://h:1/v1'), 'http://h:1/v1/completions');
  });

  it('streams: measures time to first token and reads cached_tokens from the usage chunk', async () => {
    const s = await startFakeOpenAi({ firstTokenMs: 30 });
    try {
      const results = await runSmokeRequests({ ...base, baseUrl: s.url });
      assert.equal(results.length, 3);
      for (const r of results) {
        assert.ok(r.ok && r.streamed, JSON.stringify(r));
        assert.equal(r.text, ' Paris is the capital');
        assert.ok(r.ttftMs! >= 25 && r.ttftMs! <= r.totalMs);
        assert.equal(r.cachedTokens, 0);
      }
      assert.equal((s.requests[0] as { model: string }).model, 'fake/model', 'model taken from /v1/models');
      const v = judgeSmoke(results, 3);
      assert.equal(v.state, 'passed');
      assert.match(v.verdict, /3 of 3 requests answered; first TTFT \d+ ms/);
    } finally {
      await s.close();
    }
  });

  it('without streaming reports total time and says so', async () => {
    const s = await startFakeOpenAi({ stream: false });
    try {
      const results = await runSmokeRequests({ ...base, baseUrl: s.url, model: 'm' });
      assert.ok(results.every((r) => r.ok && !r.streamed));
      assert.match(judgeSmoke(results, 3).verdict, /total time \(server did not stream\)/);
    } finally {
      await s.close();
    }
  });

  it('warns when the first request after restore hits the prefix cache', async () => {
    const s = await startFakeOpenAi({ cachedTokens: () => 5 });
    try {
      const v = judgeSmoke(await runSmokeRequests({ ...base, baseUrl: s.url }), 3);
      assert.equal(v.state, 'warned');
      assert.match(v.verdict, /cached_tokens=5 \(0 expected\)/);
    } finally {
      await s.close();
    }
  });

  it('fails on an empty completion or an HTTP error', async () => {
    const empty = await startFakeOpenAi({ text: (n) => (n === 2 ? '' : ' ok') });
    try {
      const v = judgeSmoke(await runSmokeRequests({ ...base, baseUrl: empty.url }), 3);
      assert.equal(v.state, 'failed');
      assert.match(v.verdict, /1 of 3 smoke requests failed \(empty completion\)/);
    } finally {
      await empty.close();
    }
    const broken = await startFakeOpenAi({ status: 500 });
    try {
      const v = judgeSmoke(await runSmokeRequests({ ...base, baseUrl: broken.url, requests: 1 }), 1);
      assert.equal(v.state, 'failed');
      assert.match(v.verdict, /HTTP 500/);
    } finally {
      await broken.close();
    }
  });

  it('a refused connection fails with the reason', async () => {
    const v = judgeSmoke(await runSmokeRequests({ ...base, baseUrl: 'http://127.0.0.1:9', requests: 1, model: 'm' }), 1);
    assert.equal(v.state, 'failed');
  });
});

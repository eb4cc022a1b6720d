/**
 * smoke: N completions against the restored worker (profile.smoke), judged by smoke.ts. The URL's
 * `${port}` comes from the endpoint the worker reports once it serves again.
 */
import type { RunContext } from '../context';
import { SourceExitedError } from '../context';
import { describeExit } from '../exitVerdict';
import { judgeSmoke, resolveSmokeUrl, runSmokeRequests } from '../smoke';

export async function smokeStep(rc: RunContext): Promise<void> {
  const { session, book } = rc;
  const smoke = session.profile.smoke;
  const seconds = session.profile.timeouts.requestSeconds;
  if (smoke.url.includes('${port}')) {
    await session.conditions.waitFor(
      "the restored worker's endpoint",
      () => {
        if (session.endpoint) return true;
        const exit = session.exitOf('restored', session.restoreExitMark);
        if (exit) throw new SourceExitedError(`restored worker ${describeExit(exit)} before it served`, session.stage);
        return undefined;
      },
      seconds,
      rc.signal,
    );
  }
  const { url, error } = resolveSmokeUrl(smoke.url, session.endpoint?.url);
  if (!url) {
    book.finish('smoke', 'failed', error ?? 'no smoke URL');
    return;
  }
  book.add('smoke', { kind: 'note', text: `POST ${url.replace(/\/+$/, '')}/v1/completions × ${smoke.requests}` });
  const results = await runSmokeRequests(
    { baseUrl: url, model: smoke.model, prompt: smoke.prompt, maxTokens: smoke.maxTokens, requests: smoke.requests, timeoutSeconds: seconds, signal: rc.signal, fetchImpl: rc.fetchImpl },
    (r) => book.add('smoke', { kind: 'note', text: `request ${r.index} ${r.ok ? 'answered' : 'failed'}` }),
  );
  if (rc.signal.aborted) return; // the runner records the cancellation
  // Keep only the per-request lines that judgeSmoke adds (drop the progress notes).
  book.get('smoke').evidence = book.get('smoke').evidence.filter((e) => !/^request \d+ (answered|failed)$/.test(e.text));
  const v = judgeSmoke(results, smoke.requests);
  const first = results[0];
  if (first?.ok) rc.metrics.firstTokenMs = first.ttftMs ?? first.totalMs;
  book.finish('smoke', v.state, v.verdict, v.evidence);
}

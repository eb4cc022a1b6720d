/**
 * Smoke requests against the restored worker's OpenAI-compatible `/v1/completions`: each must return a
 * non-empty completion; time to first token is measured on a streamed response (`stream: true`),
 * else the total time is reported and said to be so. `cached_tokens` should be 0 on the first
 * requests after a restore: a non-zero count means the prefix cache survived or was warmed with the
 * smoke prompt, which hides the cold-path cost the smoke test exists to show.
 */
import type { Evidence } from './types';
import type { Verdict } from './warmupVerdict';

export interface SmokeOptions {
  baseUrl: string;
  model?: string;
  prompt: string;
  maxTokens: number;
  requests: number;
  timeoutSeconds: number;
  signal: AbortSignal;
  fetchImpl?: typeof fetch;
  now?: () => number;
}

export interface SmokeResult {
  index: number;
  ok: boolean;
  streamed: boolean;
  text: string;
  /** time to first token (streamed) or to the whole answer (not streamed) */
  ttftMs?: number;
  totalMs: number;
  cachedTokens?: number;
  completionTokens?: number;
  status?: number;
  error?: string;
}

/** `${port}` in the profile's smoke URL becomes the port of the endpoint the worker reported. */
export function resolveSmokeUrl(template: string, endpointUrl: string | undefined): { url?: string; error?: string } {
  if (!template.includes('${port}')) return { url: template };
  if (!endpointUrl) return { error: `smoke.url "${template}" needs the worker's port, but the worker reported no endpoint` };
  let port: string;
  try {
    const u = new URL(endpointUrl);
    port = u.port || (u.protocol === 'https:' ? '443' : '80');
  } catch {
    const m = /:(\d{1,5})(?:\/|$)/.exec(endpointUrl);
    if (!m) return { error: `cannot read a port from the worker's endpoint "${endpointUrl}"` };
    port = m[1]!;
  }
  return { url: template.split('${port}').join(port) };
}

export function completionsUrl(base: string): string {
  const b = base.replace(/\/+$/, '');
  return /\/v1$/.test(b) ? `${b}/completions` : `${b}/v1/completions`;
}

interface CompletionChunk {
  choices?: { text?: string }[];
  usage?: { completion_tokens?: number; prompt_tokens_details?: { cached_tokens?: number } | null } | null;
}

async function firstModel(base: string, f: typeof fetch, signal: AbortSignal): Promise<string | undefined> {
  try {
    const b = base.replace(/\/+$/, '').replace(/\/v1$/, '');
    const r = await f(`${b}/v1/models`, { signal });
    if (!r.ok) return undefined;
    const body = (await r.json()) as { data?: { id?: unknown }[] };
    const id = body.data?.[0]?.id;
    return typeof id === 'string' ? id : undefined;
  } catch {
    return undefined;
  }
}

async function readStream(res: Response, t0: number, now: () => number, out: SmokeResult): Promise<void> {
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let buf = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buf += decoder.decode(value, { stream: true });
    let nl: number;
    while ((nl = buf.indexOf('\n')) >= 0) {
      const line = buf.slice(0, nl).trim();
      buf = buf.slice(nl + 1);
      if (!line.startsWith('data:')) continue;
      const data = line.slice(5).trim();
      if (data === '[DONE]') continue;
      let chunk: CompletionChunk;
      try {
        chunk = JSON.parse(data) as CompletionChunk;
      } catch {
        continue;
      }
      const text = chunk.choices?.map((c) => c.text ?? '').join('') ?? '';
      if (text && out.ttftMs === undefined) out.ttftMs = now() - t0;
      out.text += text;
      if (chunk.usage) readUsage(chunk.usage, out);
    }
  }
}

function readUsage(usage: NonNullable<CompletionChunk['usage']>, out: SmokeResult): void {
  if (typeof usage.completion_tokens === 'number') out.completionTokens = usage.completion_tokens;
  const cached = usage.prompt_tokens_details?.cached_tokens;
  if (typeof cached === 'number') out.cachedTokens = cached;
}

async function oneRequest(o: SmokeOptions, model: string | undefined, index: number, stream: boolean): Promise<SmokeResult> {
  const f = o.fetchImpl ?? fetch;
  const now = o.now ?? (() => performance.now());
  const out: SmokeResult = { index, ok: false, streamed: false, text: '', totalMs: 0 };
  const signal = AbortSignal.any([o.signal, AbortSignal.timeout(o.timeoutSeconds * 1000)]);
  const body: Record<string, unknown> = { prompt: o.prompt, max_tokens: o.maxTokens, temperature: 0 };
  if (model) body.model = model;
  if (stream) Object.assign(body, { stream: true, stream_options: { include_usage: true } });
  const t0 = now();
  try {
    const res = await f(completionsUrl(o.baseUrl), {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: stream ? 'text/event-stream, application/json' : 'application/json' },
      body: JSON.stringify(body),
      signal,
    });
    out.status = res.status;
    if (!res.ok) {
      out.error = `HTTP ${res.status}: ${(await res.text()).slice(0, 300)}`;
    } else if (stream && (res.headers.get('content-type') ?? '').includes('text/event-stream') && res.body) {
      out.streamed = true;
      await readStream(res, t0, now, out);
    } else {
      // The server answered in one piece (no streaming support): the total time is all we can measure.
      const json = (await res.json()) as CompletionChunk;
      out.text = json.choices?.map((c) => c.text ?? '').join('') ?? '';
      out.ttftMs = now() - t0;
      if (json.usage) readUsage(json.usage, out);
    }
  } catch (e) {
    out.error = o.signal.aborted ? 'cancelled' : e instanceof Error ? (e.name === 'TimeoutError' ? `no answer within ${o.timeoutSeconds} s` : e.message) : String(e);
  }
  out.totalMs = now() - t0;
  out.ok = !out.error && out.text.trim().length > 0;
  if (!out.error && !out.ok) out.error = 'empty completion';
  return out;
}

/** Sends the requests one after another (a cold worker is what is being measured, not throughput). */
export async function runSmokeRequests(o: SmokeOptions, onResult?: (r: SmokeResult) => void): Promise<SmokeResult[]> {
  const f = o.fetchImpl ?? fetch;
  const model = o.model ?? (await firstModel(o.baseUrl, f, o.signal));
  const results: SmokeResult[] = [];
  let stream = true;
  for (let i = 0; i < o.requests; i++) {
    if (o.signal.aborted) break;
    let r = await oneRequest(o, model, i + 1, stream);
    // Some servers reject `stream`/`stream_options` with a 4xx: fall back to one-piece answers.
    if (stream && r.status !== undefined && r.status >= 400 && r.status < 500) {
      stream = false;
      r = await oneRequest(o, model, i + 1, false);
    }
    results.push(r);
    onResult?.(r);
  }
  return results;
}

export function describeResult(r: SmokeResult): string {
  if (!r.ok) return `request ${r.index}: failed — ${r.error ?? 'unknown error'} (${Math.round(r.totalMs)} ms)`;
  const t = r.streamed ? `TTFT ${Math.round(r.ttftMs ?? r.totalMs)} ms (streamed), total ${Math.round(r.totalMs)} ms` : `total ${Math.round(r.totalMs)} ms (not streamed: no TTFT)`;
  const cached = r.cachedTokens === undefined ? 'cached_tokens not reported' : `cached_tokens=${r.cachedTokens}`;
  return `request ${r.index}: ${t}, ${cached}, ${JSON.stringify(r.text.slice(0, 60))}`;
}

export function judgeSmoke(results: readonly SmokeResult[], expected: number): Verdict {
  const evidence: Evidence[] = results.map((r) => ({ kind: 'request', text: describeResult(r), valueMs: r.ok ? (r.ttftMs ?? r.totalMs) : undefined }));
  const failed = results.filter((r) => !r.ok);
  if (results.length < expected) {
    return { state: 'failed', verdict: `${results.length} of ${expected} smoke requests ran`, evidence };
  }
  if (failed.length > 0) {
    return { state: 'failed', verdict: `${failed.length} of ${expected} smoke requests failed (${failed[0]!.error})`, evidence };
  }
  const first = results[0]!;
  const measure = first.streamed ? 'TTFT' : 'total time (server did not stream)';
  const firstMs = Math.round(first.ttftMs ?? first.totalMs);
  const rest = results.slice(1).map((r) => r.ttftMs ?? r.totalMs);
  const restMedian = rest.length ? Math.round([...rest].sort((a, b) => a - b)[Math.floor(rest.length / 2)]!) : undefined;
  const summary = `${expected} of ${expected} requests answered; first ${measure} ${firstMs} ms${restMedian !== undefined ? `, median of the rest ${restMedian} ms` : ''}`;
  if (first.cachedTokens !== undefined && first.cachedTokens > 0) {
    return {
      state: 'warned',
      verdict: `${summary}; but the first request after restore reported cached_tokens=${first.cachedTokens} (0 expected): the prefix cache was not cold, so this run does not show the first-request cost`,
      evidence,
    };
  }
  const cachedNote = first.cachedTokens === undefined ? '; cached_tokens not reported by the server' : '; cached_tokens=0 on the first request as expected';
  return { state: 'passed', verdict: summary + cachedNote, evidence };
}

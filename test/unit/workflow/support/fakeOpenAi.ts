/** A tiny OpenAI-compatible /v1/completions server on 127.0.0.1 (streaming or not) for smoke tests. */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeServerOptions {
  stream?: boolean;
  cachedTokens?: (n: number) => number;
  text?: (n: number) => string;
  /** delay before the first token, ms */
  firstTokenMs?: number;
  status?: number;
}

export async function startFakeOpenAi(o: FakeServerOptions = {}): Promise<{ url: string; port: number; requests: unknown[]; close: () => Promise<void> }> {
  const requests: unknown[] = [];
  const server = http.createServer((req, res) => {
    if (req.method === 'GET' && req.url === '/v1/models') {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ data: [{ id: 'fake/model' }] }));
      return;
    }
    let body = '';
    req.on('data', (d: Buffer) => (body += d.toString()));
    req.on('end', () => {
      const parsed = JSON.parse(body) as { stream?: boolean };
      requests.push(parsed);
      const n = requests.length;
      if (o.status) {
        res.statusCode = o.status;
        res.end('{"error":"nope"}');
        return;
      }
      const text = o.text ? o.text(n) : ' Paris is the capital';
      const usage = { prompt_tokens: 5, completion_tokens: 4, prompt_tokens_details: { cached_tokens: o.cachedTokens?.(n) ?? 0 } };
      setTimeout(() => {
        if (parsed.stream && o.stream !== false) {
          res.setHeader('content-type', 'text/event-stream');
          for (const w of text.split(/(?= )/)) res.write(`data: ${JSON.stringify({ choices: [{ text: w }] })}\n\n`);
          res.write(`data: ${JSON.stringify({ choices: [], usage })}\n\n`);
          res.end('data: [DONE]\n\n');
        } else {
          res.setHeader('content-type', 'application/json');
          res.end(JSON.stringify({ choices: [{ text }], usage }));
        }
      }, o.firstTokenMs ?? 1);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

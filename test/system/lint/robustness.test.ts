/**
 * Robustness of `node dist/server.js --stdio`: 1,000 hostile documents (mutated corpus, deep nesting,
 * 1 MB lines, invalid UTF-8, lone surrogates), each opened, edited and asked for code actions. The
 * server must not crash or hang, and every response (diagnostics after open and after an edit, code
 * actions) must arrive within 2 s. Prints the latency distribution.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import test from 'node:test';
import { fixtures, repoRoot } from '../../support/paths';
import { LspClient } from './lspClient';
import { mutants, type Mutant } from './mutations';

const LIMIT_MS = 2000;
const CONCURRENCY = 16;

function corpusTexts(): string[] {
  const dir = path.join(fixtures, 'lint');
  return fs
    .readdirSync(dir, { recursive: true })
    .map(String)
    .filter((f) => f.endsWith('.py'))
    .map((f) => fs.readFileSync(path.join(dir, f), 'utf8'));
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

async function exercise(client: LspClient, m: Mutant, i: number, lat: Record<string, number[]>): Promise<void> {
  const uri = `file:///robust/snapshot_${i}.py`;
  const opened = client.diagnostics(uri, 1, LIMIT_MS);
  let t = performance.now();
  if (m.raw) {
    // The document text carries invalid UTF-8 bytes inside the JSON string.
    const head = Buffer.from(`{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":"${uri}","languageId":"python","version":1,"text":"`);
    const body = Buffer.from(JSON.stringify(m.raw.toString('latin1')).slice(1, -1), 'latin1');
    client.sendRawBody(Buffer.concat([head, body, Buffer.from('"}}}')]));
  } else {
    client.notify('textDocument/didOpen', { textDocument: { uri, languageId: 'python', version: 1, text: m.text } });
  }
  const first = await opened;
  lat.open!.push(performance.now() - t);

  t = performance.now();
  const actions = await client.request<unknown[]>('textDocument/codeAction', {
    textDocument: { uri },
    range: first.diagnostics[0]?.range ?? { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } },
    context: { diagnostics: first.diagnostics, only: i % 2 ? undefined : ['quickfix', 'source.fixAll.dynamoSnapshot'] },
  }, LIMIT_MS);
  lat.codeAction!.push(performance.now() - t);
  assert.ok(Array.isArray(actions));

  const edited = client.diagnostics(uri, 2, LIMIT_MS);
  t = performance.now();
  client.notify('textDocument/didChange', {
    textDocument: { uri, version: 2 },
    contentChanges: [{ range: { start: { line: 1, character: 0 }, end: { line: 1, character: 1 } }, text: 'exit(' }],
  });
  await edited;
  lat.edit!.push(performance.now() - t);
  client.notify('textDocument/didClose', { textDocument: { uri } });
}

test('1,000 hostile documents: no crash, no hang, every response within 2 s', { timeout: 600_000 }, async (t) => {
  const server = path.join(repoRoot, 'dist', 'server.js');
  assert.ok(fs.existsSync(server), `${server} is missing (npm run build)`);
  const client = new LspClient(server);
  // A failed assertion below must not leave the server running: this process would wait for it forever.
  t.after(() => client.shutdown());
  await client.initialize('file:///robust');
  const cases = mutants(corpusTexts(), 1000);
  const lat: Record<string, number[]> = { open: [], edit: [], codeAction: [] };
  const failures: string[] = [];
  const started = performance.now();
  const one = async (i: number): Promise<void> => {
    try {
      await exercise(client, cases[i]!, i, lat);
    } catch (e) {
      failures.push(`#${i} ${cases[i]!.kind}: ${e instanceof Error ? e.message : String(e)}`);
    }
  };
  // Random mutants go CONCURRENCY at a time (many editors open at once); the special cases (1 MB
  // lines, deep nesting, encodings) one at a time, so their latency is theirs and not a queue's.
  const ordinary = cases.map((c, i) => (c.kind.startsWith('mutated') ? i : -1)).filter((i) => i >= 0);
  const specials = cases.map((c, i) => (c.kind.startsWith('mutated') ? -1 : i)).filter((i) => i >= 0);
  let next = 0;
  const worker = async (): Promise<void> => {
    for (let k = next++; k < ordinary.length && client.alive; k = next++) await one(ordinary[k]!);
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  for (const i of specials) {
    if (!client.alive) break;
    await one(i);
  }
  const total = performance.now() - started;
  const kinds = new Map<string, number>();
  for (const c of cases) kinds.set(c.kind.replace(/\(.*/, ''), (kinds.get(c.kind.replace(/\(.*/, '')) ?? 0) + 1);
  t.diagnostic(`documents: ${cases.length} (${[...kinds].map(([k, n]) => `${k} ${n}`).join(', ')}) in ${(total / 1000).toFixed(1)} s, ${CONCURRENCY} in flight`);
  for (const [name, list] of Object.entries(lat)) {
    const s = [...list].sort((a, b) => a - b);
    if (s.length) t.diagnostic(`${name}: n=${s.length} p50=${percentile(s, 50).toFixed(1)} ms p99=${percentile(s, 99).toFixed(1)} ms max=${s[s.length - 1]!.toFixed(1)} ms (edit includes the debounce, ≤ 200 ms)`);
  }
  assert.ok(client.alive, `server died: ${client.stderr.slice(-2000)}`);
  // Still answering after all of that.
  const probe = client.diagnostics('file:///robust/final.py', 1, LIMIT_MS);
  client.notify('textDocument/didOpen', { textDocument: { uri: 'file:///robust/final.py', languageId: 'python', version: 1, text: 'import sys\nasync def f(c):\n    if not await c.wait_for_restore():\n        sys.exit(0)\n' } });
  assert.equal((await probe).diagnostics.length, 1);
  assert.deepEqual(failures, []);
  assert.equal(lat.open!.length, 1000);
  assert.ok(Math.max(...lat.open!, ...lat.edit!, ...lat.codeAction!) < LIMIT_MS);
  assert.equal(await client.shutdown(), 0, 'clean exit after shutdown/exit');
});

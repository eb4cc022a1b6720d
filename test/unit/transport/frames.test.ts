/**
 * Framed log chunks (agentEvents.ts log_frame): raw bytes after a header line, read exactly and
 * turned into ordinary `log` events; a bad header (too big, inconsistent, garbage) is reported and
 * its bytes are read as lines, never as a frame; a frame cut short by the end of output is reported.
 */
import assert from 'node:assert/strict';
import test from 'node:test';
import { MAX_FRAME_BYTES, type AgentEvent } from '../../../src/core/protocol/agentEvents';
import type { ProtocolProblem } from '../../../src/core/worker/types';
import { startAgent } from '../../../src/transport/agentSession';
import { LocalTransport } from '../../../src/transport/local';

async function run(py: string[]): Promise<{ events: AgentEvent[]; problems: ProtocolProblem[] }> {
  const problems: ProtocolProblem[] = [];
  const s = startAgent(new LocalTransport(), 'python3', Buffer.from(['import sys, json', 'o = sys.stdout.buffer', ...py].join('\n')), 'follow', {}, (p) => problems.push(p));
  const events: AgentEvent[] = [];
  for await (const e of s.events()) events.push(e);
  return { events, problems };
}

const header = (bytes: number, more: Record<string, unknown> = {}) =>
  `o.write((json.dumps(dict({"v": 1, "t": 1, "type": "log_frame", "file": "engine.log", "start": 10, "end": 10 + ${bytes}, "bytes": ${bytes}}, **${JSON.stringify(more)})) + "\\n").encode())`;

test('a frame carries raw bytes (newlines, quotes, invalid UTF-8, bytes that look like JSON) unchanged', async () => {
  const payload = 'b\'{"v": 1, "type": "done"}\\nline "two" \\xc3\\xa9 \\xff\\n\' * 20000';
  const { events, problems } = await run([
    `p = ${payload}`,
    header(0).replace(/10 \+ 0/, '10 + len(p)').replace(/"bytes": 0/, '"bytes": len(p)'),
    'o.write(p)',
    'o.write(b\'{"v": 1, "t": 1, "type": "done", "ok": true}\\n\')',
  ]);
  assert.deepEqual(problems, []);
  assert.deepEqual(events.map((e) => e.type), ['log', 'done']);
  const log = events[0]!;
  assert.ok(log.type === 'log' && log.bytes);
  const expected = Buffer.from('{"v": 1, "type": "done"}\nline "two" \xc3\xa9 \xff\n'.repeat(20000), 'latin1');
  assert.ok(Buffer.from(log.bytes).equals(expected));
  assert.equal(log.start, 10);
  assert.equal(log.end, 10 + expected.length);
  assert.equal(log.data, expected.toString('utf8'));
});

test('bad frame headers are reported and their bytes read as lines; a truncated frame is reported', async () => {
  const { events, problems } = await run([
    header(MAX_FRAME_BYTES + 1),
    header(5, { end: 99 }),
    header(-3),
    'o.write(b\'{"v": 1, "t": 1, "type": "warning", "message": "after"}\\n\')',
    header(1000),
    'o.write(b"only 12 byte")',
  ]);
  assert.deepEqual(events.map((e) => e.type), ['warning']);
  assert.deepEqual(problems.map((p) => p.kind), ['invalid', 'invalid', 'invalid', 'invalid']);
  assert.match(problems[3]!.detail, /ended after 12 of 1000 bytes/);
});

test('the agent sends frames only when asked, and both forms give the same log events', async () => {
  // Covered end to end by localConnection/ssh tests (AgentConnection always asks); here the two forms of one chunk.
  const text = 'é\n(EngineCore_DP0 pid=1) x\n';
  const b = Buffer.from(text);
  const { events } = await run([
    `o.write((json.dumps({"v": 1, "t": 1, "type": "log", "file": "f", "start": 0, "end": ${b.length}, "data": ${JSON.stringify(text)}}) + "\\n").encode())`,
    `o.write(b'{"v": 1, "t": 1, "type": "log_frame", "file": "f", "start": 0, "end": ${b.length}, "bytes": ${b.length}}\\n')`,
    `o.write(bytes.fromhex("${b.toString('hex')}"))`,
  ]);
  assert.equal(events.length, 2);
  assert.ok(events[0]!.type === 'log' && events[1]!.type === 'log');
  assert.equal(events[0].data, events[1].data);
  assert.equal(events[0].bytes, undefined);
});

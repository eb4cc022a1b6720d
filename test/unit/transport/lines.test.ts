import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import test from 'node:test';
import { readLines, type LineItem } from '../../../src/transport/lines';

async function all(chunks: string[], max = 10): Promise<LineItem[]> {
  const out: LineItem[] = [];
  for await (const i of readLines(Readable.from(chunks.map((c) => Buffer.from(c))), max)) out.push(i);
  return out;
}

test('lines split across chunks are joined; a last line without newline is kept', async () => {
  assert.deepEqual(await all(['ab', 'c\nd', 'e\n\nf']), [{ line: 'abc' }, { line: 'de' }, { line: '' }, { line: 'f' }]);
});

test('multi-byte characters split across chunks survive', async () => {
  const b = Buffer.from('é\n');
  const out: LineItem[] = [];
  for await (const i of readLines(Readable.from([b.subarray(0, 1), b.subarray(1)]), 10)) out.push(i);
  assert.deepEqual(out, [{ line: 'é' }]);
});

test('an oversized line is dropped up to its newline and reported with its size', async () => {
  assert.deepEqual(await all(['12345', '678901234', '5\nok\n'], 10), [{ oversized: 15 }, { line: 'ok' }]);
  assert.deepEqual(await all(['12345678901234'], 10), [{ oversized: 14 }]);
});

/**
 * Splits the agent's stdout into lines without quadratic copying and with a hard cap on line
 * length: a line longer than the cap is dropped up to its newline and reported, never buffered.
 */
import type { Readable } from 'node:stream';

export type LineItem = { line: string } | { oversized: number };

export async function* readLines(stream: Readable, maxBytes: number): AsyncGenerator<LineItem> {
  let parts: Buffer[] = [];
  let held = 0;
  let skipping = 0; // >0: bytes of an oversized line dropped so far
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    let start = 0;
    for (;;) {
      const nl = chunk.indexOf(10, start);
      if (nl < 0) break;
      if (skipping > 0) {
        yield { oversized: skipping + nl - start };
        skipping = 0;
      } else if (held === 0) {
        yield { line: chunk.toString('utf8', start, nl) };
      } else {
        parts.push(chunk.subarray(start, nl));
        yield { line: Buffer.concat(parts).toString('utf8') };
        parts = [];
        held = 0;
      }
      start = nl + 1;
    }
    const rest = chunk.length - start;
    if (rest === 0) continue;
    if (skipping > 0) {
      skipping += rest;
    } else if (held + rest > maxBytes) {
      skipping = held + rest;
      parts = [];
      held = 0;
    } else {
      // Copy: the stream may reuse its chunk buffers.
      parts.push(Buffer.from(chunk.subarray(start)));
      held += rest;
    }
  }
  if (skipping > 0) yield { oversized: skipping };
  else if (held > 0) yield { line: Buffer.concat(parts).toString('utf8') };
}

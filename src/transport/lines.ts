/**
 * Splits the agent's stdout into lines without quadratic copying and with a hard cap on line
 * length: a line longer than the cap is dropped up to its newline and reported, never buffered.
 * With `frameOf`, a line may announce a frame (agentEvents.ts `log_frame`): the next N raw bytes
 * are read as one Buffer and yielded with their header line, not split.
 */
import type { Readable } from 'node:stream';

export type LineItem = { line: string; frame?: Buffer } | { oversized: number } | { truncatedFrame: number; expected: number };

/** Returns the byte count of the frame this line announces, or 0 (an ordinary line). Must bound it. */
export type FrameOf = (line: string) => number;

export async function* readLines(stream: Readable, maxBytes: number, frameOf?: FrameOf): AsyncGenerator<LineItem> {
  let parts: Buffer[] = [];
  let held = 0;
  let skipping = 0; // >0: bytes of an oversized line dropped so far
  let frame: Buffer | undefined; // a frame being filled
  let frameHeader = '';
  let frameFill = 0;
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    let start = 0;
    while (start < chunk.length) {
      if (frame) {
        const n = Math.min(frame.length - frameFill, chunk.length - start);
        chunk.copy(frame, frameFill, start, start + n);
        frameFill += n;
        start += n;
        if (frameFill === frame.length) {
          yield { line: frameHeader, frame };
          frame = undefined;
        }
        continue;
      }
      const nl = chunk.indexOf(10, start);
      if (nl < 0) break;
      let line: string | undefined;
      if (skipping > 0) {
        yield { oversized: skipping + nl - start };
        skipping = 0;
      } else if (held === 0) {
        line = chunk.toString('utf8', start, nl);
      } else {
        parts.push(chunk.subarray(start, nl));
        line = Buffer.concat(parts).toString('utf8');
        parts = [];
        held = 0;
      }
      start = nl + 1;
      if (line === undefined) continue;
      const n = frameOf ? frameOf(line) : 0;
      if (n > 0) {
        // One copy into a buffer of its own: the consumer may keep it, and the stream may reuse chunks.
        frame = Buffer.allocUnsafe(n);
        frameHeader = line;
        frameFill = 0;
      } else {
        yield { line };
      }
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
  if (frame) yield { truncatedFrame: frameFill, expected: frame.length };
  else if (skipping > 0) yield { oversized: skipping };
  else if (held > 0) yield { line: Buffer.concat(parts).toString('utf8') };
}

/**
 * Splits a stream of concatenated JSON documents — what `kubectl get --watch -o json` prints: one
 * pretty-printed object after another, no separator — into the documents. Hand-written rather than a
 * streaming-JSON dependency because the job is only finding where each top-level value ends (a
 * brace-depth scan that skips strings and escapes, linear in the input); each document is then
 * handed to `JSON.parse`. A document larger than `maxBytes` is reported and skipped to its end
 * without being kept, so a runaway stream cannot grow memory without bound.
 */

export interface JsonSplitter {
  /** Feed a chunk; calls `onDocument` for every complete top-level value. */
  push(chunk: string): void;
  /** Characters held for a document not yet complete. */
  pending(): number;
}

export function jsonSplitter(onDocument: (text: string) => void, onOversize: (chars: number) => void, maxBytes = 16 * 1024 * 1024): JsonSplitter {
  let held = '';
  let depth = 0;
  let inString = false;
  let escaped = false;
  let skipping = false;
  return {
    push(chunk) {
      // `from`: where the part of this chunk that belongs to the current document starts.
      let from = depth > 0 && !skipping ? 0 : -1;
      for (let i = 0; i < chunk.length; i++) {
        const ch = chunk.charCodeAt(i);
        if (inString) {
          if (escaped) escaped = false;
          else if (ch === 92 /* \ */) escaped = true;
          else if (ch === 34 /* " */) inString = false;
          continue;
        }
        if (ch === 34) {
          if (depth > 0) inString = true;
        } else if (ch === 123 /* { */ || ch === 91 /* [ */) {
          if (depth === 0) from = i;
          depth++;
        } else if ((ch === 125 /* } */ || ch === 93) /* ] */ && depth > 0) {
          depth--;
          if (depth === 0) {
            if (!skipping) onDocument(held + chunk.slice(from, i + 1));
            held = '';
            skipping = false;
            from = -1;
          }
        }
      }
      if (depth > 0 && !skipping) {
        held += chunk.slice(Math.max(from, 0));
        if (held.length > maxBytes) {
          onOversize(held.length);
          held = '';
          skipping = true;
        }
      }
    },
    pending: () => held.length,
  };
}

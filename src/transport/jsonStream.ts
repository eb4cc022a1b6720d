/**
 * Splits a stream of concatenated JSON documents — what `kubectl get --watch -o json` prints: one
 * pretty-printed object after another, no separator — into the documents. Hand-written rather than a
 * streaming-JSON dependency because the job is only finding where each top-level value ends (a
 * brace-depth scan that skips strings and escapes, linear in the input); each document is then
 * handed to `JSON.parse`. A document larger than `maxBytes` is dropped and reported, so a runaway
 * stream cannot grow memory without bound.
 */

export interface JsonSplitter {
  /** Feed a chunk; calls `onDocument` for every complete top-level value. */
  push(chunk: string): void;
  /** Bytes held for a document not yet complete. */
  pending(): number;
}

export function jsonSplitter(onDocument: (text: string) => void, onOversize: (bytes: number) => void, maxBytes = 16 * 1024 * 1024): JsonSplitter {
  let buf = '';
  let depth = 0;
  let inString = false;
  let escaped = false;
  let start = -1;
  let scanned = 0;
  return {
    push(chunk) {
      buf += chunk;
      let i = scanned;
      for (; i < buf.length; i++) {
        const ch = buf.charCodeAt(i);
        if (inString) {
          if (escaped) escaped = false;
          else if (ch === 92 /* \ */) escaped = true;
          else if (ch === 34 /* " */) inString = false;
          continue;
        }
        if (ch === 34) {
          inString = true;
        } else if (ch === 123 /* { */ || ch === 91 /* [ */) {
          if (depth === 0) start = i;
          depth++;
        } else if (ch === 125 /* } */ || ch === 93 /* ] */) {
          if (depth === 0) continue; // stray closer between documents: not ours to judge
          depth--;
          if (depth === 0 && start >= 0) {
            onDocument(buf.slice(start, i + 1));
            start = -1;
          }
        }
      }
      // Keep only the unfinished document.
      if (depth === 0) {
        buf = '';
        scanned = 0;
      } else {
        buf = buf.slice(start);
        scanned = buf.length;
        start = 0;
        if (buf.length > maxBytes) {
          onOversize(buf.length);
          buf = '';
          scanned = 0;
          depth = 0;
          inString = false;
          escaped = false;
          start = -1;
        }
      }
    },
    pending: () => buf.length,
  };
}

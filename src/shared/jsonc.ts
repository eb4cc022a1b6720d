/**
 * VS Code's settings.json is JSON with comments and trailing commas. One reader for it, used by the
 * CLI's `lint` and `run` (the editor reads settings through its own API).
 */

/** Index of the quote that closes the JSON string opening at `start` (or past the end). */
function stringEnd(text: string, start: number): number {
  let j = start + 1;
  while (j < text.length && text[j] !== '"') j += text[j] === '\\' ? 2 : 1;
  return j;
}

/** Strips line and block comments and trailing commas outside strings (settings.json is JSONC). */
export function stripJsonc(text: string): string {
  let out = '';
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === '"') {
      const j = stringEnd(text, i);
      out += text.slice(i, j + 1);
      i = j;
    } else if (c === '/' && text[i + 1] === '/') {
      while (i < text.length && text[i] !== '\n') i++;
      out += '\n';
    } else if (c === '/' && text[i + 1] === '*') {
      const end = text.indexOf('*/', i + 2);
      i = end < 0 ? text.length : end + 1;
    } else out += c;
  }
  return dropTrailingCommas(out);
}

const TRAILING_COMMA = /,\s*[}\]]/y;

/** Drops each comma that only whitespace separates from a closing `}` or `]`, outside strings. */
function dropTrailingCommas(text: string): string {
  let out = '';
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === '"') {
      const j = stringEnd(text, i);
      out += text.slice(i, j + 1);
      i = j;
      continue;
    }
    TRAILING_COMMA.lastIndex = i;
    if (c === ',' && TRAILING_COMMA.test(text)) continue;
    out += c;
  }
  return out;
}

/** Parses settings.json text (a leading BOM allowed). */
export function parseJsonc(text: string): unknown {
  return JSON.parse(stripJsonc(text.replace(/^\uFEFF/, '')));
}

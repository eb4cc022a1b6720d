/**
 * Hostile inputs for the robustness test: random deletions, insertions and byte flips of the corpus,
 * deep nesting, 1 MB lines, invalid UTF-8 (sent as raw bytes) and lone surrogates. Deterministic: the
 * same seed gives the same 1,000 files.
 */
export function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    // mulberry32
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface Mutant {
  kind: string;
  /** The document text, or raw bytes when the case is invalid UTF-8. */
  text: string;
  raw?: Buffer;
}

const TOKENS = ['raise SystemExit(', 'sys.exit(', ')', '(', ':', '\n', '    ', 'if not await c.wait_for_restore():\n', '"""', "'", '#', '\\', 'from sys import exit as q\n', 'except*', 'lambda', 'é😀', '\t', '\r\n'];

function pick<T>(r: () => number, list: readonly T[]): T {
  return list[Math.floor(r() * list.length)]!;
}

function mutateText(r: () => number, base: string): { kind: string; text: string } {
  let t = base;
  const ops = 1 + Math.floor(r() * 8);
  const kinds: string[] = [];
  for (let i = 0; i < ops; i++) {
    const at = Math.floor(r() * (t.length + 1));
    const op = Math.floor(r() * 3);
    if (op === 0) {
      kinds.push('delete');
      t = t.slice(0, at) + t.slice(Math.min(t.length, at + 1 + Math.floor(r() * 40)));
    } else if (op === 1) {
      kinds.push('insert');
      t = t.slice(0, at) + pick(r, TOKENS) + t.slice(at);
    } else {
      kinds.push('flip');
      const code = t.charCodeAt(at) ^ (1 << Math.floor(r() * 7));
      t = t.slice(0, at) + String.fromCharCode(code) + t.slice(at + 1);
    }
  }
  return { kind: `mutated(${kinds.join(',')})`, text: t };
}

function special(r: () => number, i: number, corpus: readonly string[]): Mutant {
  switch (i % 6) {
    case 0: {
      const depth = 500 + Math.floor(r() * 2500);
      return { kind: `nested-parens(${depth})`, text: `import sys\nx = ${'('.repeat(depth)}sys.exit(0)${')'.repeat(depth)}\n` };
    }
    case 1: {
      const depth = 100 + Math.floor(r() * 400);
      let t = 'import sys\nasync def run(c):\n';
      for (let d = 0; d < depth; d++) t += ' '.repeat(4 * (d + 1)) + 'if not await c.wait_for_restore():\n';
      return { kind: `nested-ifs(${depth})`, text: t + ' '.repeat(4 * (depth + 1)) + 'raise SystemExit(0)\n' };
    }
    case 2:
      return { kind: '1MB-string-line', text: `import sys\nx = "${'a'.repeat(1 << 20)}"; sys.exit(0)\n` };
    case 3:
      return { kind: '1MB-expression-line', text: `import sys\nx = ${'a+'.repeat(1 << 19)}a; raise SystemExit(1)\n` };
    case 4: {
      const base = Buffer.from(pick(r, corpus), 'utf8');
      for (let k = 0; k < 20; k++) base[Math.floor(r() * base.length)] = pick(r, [0x80, 0xc3, 0xff, 0xfe, 0xed, 0xa0]);
      return { kind: 'invalid-utf8', text: '', raw: base };
    }
    default:
      return { kind: 'lone-surrogates', text: pick(r, corpus).replace(/exit/g, 'exit\ud800').replace(/ /g, (m) => (r() < 0.05 ? '\udfff' : m)) };
  }
}

/** `count` hostile documents built from `corpus` texts. */
export function mutants(corpus: readonly string[], count: number, seed = 20261130): Mutant[] {
  const r = rng(seed);
  const out: Mutant[] = [];
  for (let i = 0; i < count; i++) {
    // One in ten is a special case (nesting, huge lines, encodings); the rest are random mutations.
    out.push(i % 10 === 9 ? special(r, Math.floor(i / 10), corpus) : { ...mutateText(r, pick(r, corpus)) });
  }
  return out;
}

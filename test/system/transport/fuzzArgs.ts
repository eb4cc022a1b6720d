/** Deterministic hostile argv generator for the quoting fuzz. */

/** mulberry32: a tiny seeded PRNG, so a failing case can be replayed from its seed. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const ATOMS = [
  "'", '"', '`', '$', '$(id)', '${HOME}', '$HOME', ';', '&&', '||', '|', '&', '\n', '\r', '\t', ' ', '  ', '\\', '\\\\',
  '*', '?', '[a-z]', '~', '~root', '!', '!!', '#', '%', '^', '{a,b}', '(', ')', '<', '>', '>>', '2>&1', '=', '-',
  '--', '-c', '-e', "'\\''", '"\'"', 'é', 'ß', '日本', '😀', '\u202e', '\u00a0', 'x', 'abc', 'A_B', '0', '42',
  '%C', '%h', 'eval', 'exec', 'base64', '-d', "\\'", '\\"', '$\'\\n\'', '\x01', '\x1b[31m', '\x7f',
];

export function randomArg(r: () => number): string {
  const n = Math.floor(r() * 6);
  let s = '';
  for (let i = 0; i < n; i++) {
    s += r() < 0.15 ? String.fromCharCode(0x20 + Math.floor(r() * 0x5f)) : ATOMS[Math.floor(r() * ATOMS.length)]!;
  }
  return s;
}

export function randomArgv(r: () => number): string[] {
  const n = 1 + Math.floor(r() * 6);
  return Array.from({ length: n }, () => randomArg(r));
}

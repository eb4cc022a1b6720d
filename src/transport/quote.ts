/**
 * Quoting for remote commands (shared/reference/worker-transport.md §1.4). `ssh host a b` does not
 * pass argv: the remote login shell re-parses the joined string, and that shell may be bash, dash,
 * zsh, fish or tcsh. So argv is single-quoted for POSIX sh, and the whole script is then base64-wrapped
 * so the login shell only ever sees [A-Za-z0-9+/=] inside one pair of single quotes.
 */

/** POSIX sh single-quote one word. NUL cannot be in argv. */
export function shQuote(s: string): string {
  if (s.includes('\0')) throw new Error('NUL byte in argument');
  if (s !== '' && /^[A-Za-z0-9_/.,:=@%+-]+$/.test(s)) return s;
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** One POSIX-sh command line from argv (+ optional cwd/env; env names validated). */
export function shCommand(argv: readonly string[], o: { cwd?: string; env?: Record<string, string> } = {}): string {
  if (argv.length === 0) throw new Error('empty argv');
  const parts: string[] = [];
  if (o.cwd) parts.push('cd', shQuote(o.cwd), '&&');
  for (const [k, v] of Object.entries(o.env ?? {})) {
    if (!ENV_NAME.test(k)) throw new Error(`bad env name ${JSON.stringify(k)}`);
    parts.push(`${k}=${shQuote(v)}`);
  }
  parts.push('exec', ...argv.map(shQuote));
  return parts.join(' ');
}

/** Login-shell-agnostic wrapper: needs only /bin/sh and base64 on the remote side. */
export function viaPosixSh(script: string): string {
  const b64 = Buffer.from(script, 'utf8').toString('base64');
  return `exec /bin/sh -c 'eval "$(echo ${b64}|base64 -d)"'`;
}

/**
 * A small glob matcher for `dynamoSnapshot.lint.include` (VS Code's glob dialect: `**`, `*`, `?`,
 * `{a,b}`, `[abc]`). Paths are matched with `/` separators; a pattern matches a path relative to the
 * workspace, and patterns starting with `**` match absolute paths too.
 */

const cache = new Map<string, RegExp>();

function escape(c: string): string {
  return /[\\^$.*+?()[\]{}|/]/.test(c) ? '\\' + c : c;
}

/** Why `glob` cannot be used (an unclosed `{`, a class such as `[z-a]`), or undefined when it can. */
export function globProblem(glob: string): string | undefined {
  try {
    compile(glob);
    return undefined;
  } catch (e) {
    return `"${glob}" is not a valid glob (${e instanceof Error ? e.message.replace(/^Invalid regular expression: /, '') : String(e)})`;
  }
}

/** The pattern as a RegExp; a pattern that does not compile matches nothing rather than throwing. */
export function globToRegExp(glob: string): RegExp {
  const hit = cache.get(glob);
  if (hit) return hit;
  let out: RegExp;
  try {
    out = compile(glob);
  } catch {
    out = /(?!)/;
  }
  cache.set(glob, out);
  return out;
}

function compile(glob: string): RegExp {
  let re = '';
  let inGroup = 0;
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]!;
    if (c === '*') {
      if (glob[i + 1] === '*') {
        // `**/` = any number of folders (zero included); a trailing `**` = anything.
        if (glob[i + 2] === '/') {
          re += '(?:[^/]*/)*';
          i += 2;
        } else {
          re += '.*';
          i += 1;
        }
      } else re += '[^/]*';
    } else if (c === '?') re += '[^/]';
    else if (c === '{') {
      inGroup++;
      re += '(?:';
    } else if (c === '}' && inGroup > 0) {
      inGroup--;
      re += ')';
    } else if (c === ',' && inGroup > 0) re += '|';
    else if (c === '[') {
      const end = glob.indexOf(']', i + 1);
      if (end < 0) re += '\\[';
      else {
        const body = glob.slice(i + 1, end).replace(/^!/, '^').replace(/\\/g, '\\\\');
        re += `[${body}]`;
        i = end;
      }
    } else re += escape(c);
  }
  if (inGroup > 0) throw new Error('unclosed {');
  return new RegExp(`^${re}$`);
}

export function normalizePath(p: string): string {
  return p.replace(/\\/g, '/');
}

/** True when `relPath` (relative to the workspace; or absolute) matches any pattern. */
export function matchesAny(patterns: readonly string[], relPath: string, absPath?: string): boolean {
  const rel = normalizePath(relPath).replace(/^\.\//, '');
  const abs = absPath ? normalizePath(absPath) : undefined;
  return patterns.some((p) => {
    const re = globToRegExp(normalizePath(p));
    return re.test(rel) || (abs !== undefined && p.startsWith('**') && re.test(abs.replace(/^\//, '')));
  });
}

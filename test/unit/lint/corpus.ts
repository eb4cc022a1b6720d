/**
 * Reads the lint corpus (test/fixtures/lint, see its README): each case's text, header options, the
 * findings its `# expect:` comments state and the expected fixed text.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fixtures } from '../../support/paths';

export const corpusDir = path.join(fixtures, 'lint');

export interface Expected {
  line: number;
  code: string;
  severity: string;
  fix: 'safe' | 'unsafe' | null;
}

export interface Case {
  /** Path under test/fixtures/lint, `/`-separated. */
  name: string;
  file: string;
  text: string;
  relPath: string;
  broken: boolean;
  /** Minimum Python (major, minor) that compiles it. */
  python: [number, number];
  expected: Expected[];
  fixed: string;
  hasFixedFile: boolean;
}

const EXPECT = /#\s*expect:\s*(.*)$/;

export function parseExpectations(text: string): Expected[] {
  const out: Expected[] = [];
  text.split(/\r?\n/).forEach((line, i) => {
    const m = EXPECT.exec(line);
    if (!m) return;
    for (const part of m[1]!.split(';')) {
      const [code, severity, fix] = part.trim().split(/\s+/);
      if (!code || !severity) throw new Error(`bad expectation on line ${i + 1}: ${line}`);
      out.push({ line: i, code, severity, fix: fix === 'safe' || fix === 'unsafe' ? fix : null });
    }
  });
  return out;
}

function header(text: string, key: string): string | undefined {
  return new RegExp(`^#\\s*${key}:\\s*(.+?)\\s*$`, 'm').exec(text)?.[1];
}

export function loadCase(file: string): Case {
  const text = fs.readFileSync(file, 'utf8');
  const name = path.relative(corpusDir, file).split(path.sep).join('/');
  const fixedFile = file + '.fixed';
  const hasFixedFile = fs.existsSync(fixedFile);
  const py = (header(text, 'lint-python') ?? '3.8').split('.').map(Number);
  return {
    name,
    file,
    text,
    relPath: header(text, 'lint-as') ?? name,
    broken: header(text, 'lint-syntax') === 'broken',
    python: [py[0]!, py[1]!],
    expected: parseExpectations(text),
    fixed: hasFixedFile ? fs.readFileSync(fixedFile, 'utf8') : text,
    hasFixedFile,
  };
}

export function allCases(): Case[] {
  return fs
    .readdirSync(corpusDir, { recursive: true })
    .map(String)
    .filter((f) => f.endsWith('.py'))
    .sort()
    .map((f) => loadCase(path.join(corpusDir, f)));
}

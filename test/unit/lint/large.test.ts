/**
 * Large files: a generated module of ~20,000 lines with a snapshot block every 200 lines keeps exact
 * counts (every planted exit found, none of the decoys), and its fix-all output compiles.
 */
import assert from 'node:assert/strict';
import test from 'node:test';
import { fixText, lintText } from '../../../src/lint/index';
import { DEFAULT_LINT_SETTINGS } from '../../../src/shared/lintSettings';
import { pyCompile, pythonVersion, sharedParser } from './helpers';

const FILLER = `def helper_{i}(values):
    """Filler with exit-like names that are not exits."""
    exit_code = sum(values)
    quit_after = [v for v in values if v]
    return {"exit": exit_code, "quit": quit_after}


class Holder{i}:
    exit = None

    def quit(self):
        return self.exit

`;

const BLOCK = `async def snapshot_{i}(controller):
    if not await controller.wait_for_restore():
        raise SystemExit(0)
    restored = await controller.wait_for_restore()
    if not restored:
        leave(0)
    if restored:
        os._exit(0)
    return Holder{i}().quit()

`;

function generate(blocks: number): string {
  let out = 'import os\nfrom sys import exit as leave\n\n\n';
  for (let i = 0; i < blocks; i++) out += FILLER.replaceAll('{i}', String(i)) + BLOCK.replaceAll('{i}', String(i));
  return out;
}

test('a 20,000-line file: every planted finding, nothing else, and the fixed file compiles', async () => {
  const parser = await sharedParser();
  const text = generate(900);
  const lines = text.split('\n').length;
  assert.ok(lines > 20_000, `${lines} lines`);
  const findings = lintText(parser, text, { relPath: 'gen.py' }, DEFAULT_LINT_SETTINGS);
  const count = (code: string) => findings.filter((f) => f.code === code).length;
  assert.equal(count('SNAP001'), 1800, 'two capture-path exits per block');
  assert.equal(count('SNAP002'), 900, 'one restore-path os._exit per block');
  assert.ok(findings.filter((f) => f.code === 'SNAP001').every((f) => f.severity === 'error' && f.fix?.applicability === 'safe'));
  const fixed = fixText(parser, text, { relPath: 'gen.py' }, DEFAULT_LINT_SETTINGS);
  assert.equal(fixed.fixed, 1800);
  assert.equal(lintText(parser, fixed.text, { relPath: 'gen.py' }, DEFAULT_LINT_SETTINGS).filter((f) => f.code === 'SNAP001').length, 0);
  if (pythonVersion[0] >= 3) assert.deepEqual([...pyCompile({ fixed: fixed.text }).entries()], []);
});

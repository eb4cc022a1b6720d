/** shQuote/shCommand/viaPosixSh against the real shells installed here (no ssh needed). */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import test from 'node:test';
import { execa } from 'execa';
import { shCommand, shQuote, viaPosixSh } from '../../../src/transport/quote';
import { rng, randomArgv } from '../../system/transport/fuzzArgs';

const ECHO = 'import sys,json;sys.stdout.write(json.dumps(sys.argv[1:]))';

test('safe words stay bare, everything else is single-quoted', () => {
  assert.equal(shQuote('abc/def-1.2:x=y@z%+,'), 'abc/def-1.2:x=y@z%+,');
  assert.equal(shQuote(''), "''");
  assert.equal(shQuote("it's"), `'it'\\''s'`);
  assert.equal(shQuote('$(id)'), "'$(id)'");
  assert.throws(() => shQuote('a\0b'), /NUL/);
});

test('shCommand validates env names and puts cwd first', () => {
  assert.equal(shCommand(['ls', '-l'], { cwd: '/tmp/a b', env: { A: 'x y' } }), "cd '/tmp/a b' && A='x y' exec ls -l");
  assert.throws(() => shCommand(['ls'], { env: { 'A;B': '1' } }), /bad env name/);
  assert.throws(() => shCommand([]), /empty argv/);
});

test('viaPosixSh shows the outer shell only base64', () => {
  const s = viaPosixSh(shCommand(['echo', "'; rm -rf / #", '`id`']));
  assert.match(s, /^exec \/bin\/sh -c 'eval "\$\(echo [A-Za-z0-9+/=]+\|base64 -d\)"'$/);
});

for (const shell of ['/bin/bash', '/bin/dash', '/usr/bin/zsh', '/usr/bin/fish', '/usr/bin/tcsh']) {
  test(`hostile argv survives ${shell} -c (what sshd does with the login shell)`, async (t) => {
    if (!fs.existsSync(shell)) return t.skip(`${shell} not installed`);
    const r = rng(7);
    for (let i = 0; i < 20; i++) {
      const argv = Array.from({ length: 10 }, () => randomArgv(r)).flat();
      const res = await execa(shell, ['-c', viaPosixSh(shCommand(['python3', '-c', ECHO, ...argv]))], { reject: false });
      assert.equal(res.exitCode, 0, res.stderr);
      assert.deepEqual(JSON.parse(res.stdout), argv);
    }
  });
}

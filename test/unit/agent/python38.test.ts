/** The agent and the stand-in promise Python 3.8+: run both on a 3.8 interpreter when one is installed. */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import test, { after } from 'node:test';
import { WorkerProfile } from '../../../src/core/settings/workerProfile';
import { createConnection } from '../../../src/transport';
import { STANDIN, collect, scratch, stopAllStarted, testEnv, track } from '../transport/helpers';

after(stopAllStarted);

/** DSW_PYTHON38, else a pyenv-installed 3.8, else python3.8 on PATH. */
function findPython38(): string | undefined {
  if (process.env.DSW_PYTHON38) return process.env.DSW_PYTHON38;
  const pyenv = path.join(process.env.PYENV_ROOT ?? path.join(os.homedir(), '.pyenv'), 'versions');
  const fromPyenv = fs.existsSync(pyenv) ? fs.readdirSync(pyenv).filter((v) => v.startsWith('3.8.')).sort().map((v) => path.join(pyenv, v, 'bin', 'python3')) : [];
  const onPath = (process.env.PATH ?? '').split(path.delimiter).map((d) => path.join(d, 'python3.8'));
  return [...fromPyenv, ...onPath].find((p) => fs.existsSync(p));
}

const PY38 = findPython38();

test('agent and stand-in work on Python 3.8', async (t) => {
  if (!PY38) return t.skip('no Python 3.8 here (set DSW_PYTHON38)');
  const profile = WorkerProfile.parse({ name: 'py38', python: PY38, command: [PY38, STANDIN(), '--dp', '2'] });
  const conn = createConnection(profile, testEnv(scratch('py38')));
  const hello = await conn.hello(AbortSignal.timeout(30_000));
  assert.match(hello.python, /^3\.8\./);
  const h = track(conn, await conn.startSource('py38', AbortSignal.timeout(30_000)));
  const f = collect(conn, h);
  const cap = await conn.capture(h, AbortSignal.timeout(30_000));
  assert.equal(cap.ok, true, cap.error);
  const exit = await f.waitFor((e) => e.type === 'process_exit');
  assert.ok(exit.type === 'process_exit' && exit.code === 0);
  await f.stop();
});

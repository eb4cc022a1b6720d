/** The agent and the stand-in promise Python 3.8+: run both on a 3.8 interpreter when one is installed. */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import test, { after } from 'node:test';
import { WorkerProfile } from '../../../src/core/settings/workerProfile';
import { createConnection } from '../../../src/transport';
import { STANDIN, collect, scratch, stopAllStarted, testEnv, track } from '../transport/helpers';

after(stopAllStarted);

const PY38 = process.env.DSW_PYTHON38 ?? ['/root/.pyenv/versions/3.8.18/bin/python3', '/usr/bin/python3.8'].find((p) => fs.existsSync(p));

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

import assert from 'node:assert/strict';
import test from 'node:test';
import { readSettings } from '../../../src/core/settings/settings';
import { parseWorkerProfiles, WorkerProfile } from '../../../src/core/settings/workerProfile';

const getter = (values: Record<string, unknown>) => (key: string) => values[key];

test('defaults apply when nothing is set', () => {
  const { settings, problems } = readSettings(getter({}));
  assert.deepEqual(problems, []);
  assert.equal(settings.general['runs.keep'], 50);
  assert.equal(settings.general['ssh.path'], 'ssh');
  assert.equal(settings.lint.enable, true);
  assert.deepEqual(settings.lint.include, ['**/snapshot.py', '**/snapshot/**/*.py']);
  assert.deepEqual(settings.workers, []);
});

test('a wrong general setting names the setting and keeps the default', () => {
  const { settings, problems } = readSettings(getter({ 'runs.keep': 0, 'ssh.path': '' }));
  assert.equal(settings.general['runs.keep'], 50);
  assert.deepEqual(problems.map((p) => p.setting).sort(), ['dynamoSnapshot.runs.keep', 'dynamoSnapshot.ssh.path']);
  assert.match(problems.find((p) => p.setting === 'dynamoSnapshot.runs.keep')!.message, /got 0/);
});

test('a wrong lint setting names the nested key', () => {
  const { problems } = readSettings(getter({ lint: { severity: { SNAP001: 'fatal' } } }));
  assert.equal(problems.length, 1);
  assert.equal(problems[0]!.setting, 'dynamoSnapshot.lint.severity.SNAP001');
});

test('worker profiles: a bad one names the profile and field, good ones survive', () => {
  const { profiles, problems } = parseWorkerProfiles([
    { name: 'ok', command: ['python3', '-m', 'dynamo.vllm'] },
    { name: 'bad-timeout', command: ['x'], timeouts: { warmupSeconds: Number.POSITIVE_INFINITY } },
    { name: 'bad-ssh', command: ['x'], transport: { kind: 'ssh', host: '-oProxyCommand=evil' } },
    { name: 'no-command' },
    { name: 'ok', command: ['dup'] },
  ]);
  assert.deepEqual(profiles.map((p) => p.name), ['ok']);
  const by = (name: string) => problems.filter((p) => p.profile === name);
  assert.equal(by('bad-timeout')[0]!.field, 'timeouts.warmupSeconds');
  assert.match(by('bad-timeout')[0]!.message, /finite number of seconds greater than 0/);
  assert.equal(by('bad-ssh')[0]!.field, 'transport.host');
  assert.equal(by('no-command')[0]!.field, 'command');
  assert.match(by('ok')[0]!.message, /same name/);
});

test('warm-up timeout rejects zero, negatives, NaN and strings', () => {
  for (const bad of [0, -5, Number.NaN, '600']) {
    const r = WorkerProfile.safeParse({ name: 'w', command: ['x'], timeouts: { warmupSeconds: bad } });
    assert.equal(r.success, false, `warmupSeconds=${String(bad)} must be rejected`);
  }
  const ok = WorkerProfile.parse({ name: 'w', command: ['x'], timeouts: { warmupSeconds: 0.5 } });
  assert.equal(ok.timeouts.warmupSeconds, 0.5);
  assert.equal(ok.timeouts.readySeconds, 900);
});

test('capture mode "command" needs a capture command; kubernetes needs pod xor selector', () => {
  const cmd = WorkerProfile.safeParse({ name: 'w', command: ['x'], captureMode: 'command' });
  assert.equal(cmd.success, false);
  assert.deepEqual(cmd.error!.issues[0]!.path, ['captureCommand']);
  const both = WorkerProfile.safeParse({ name: 'k', command: ['x'], transport: { kind: 'kubernetes', pod: 'p', selector: 'a=b' } });
  assert.equal(both.success, false);
  const one = WorkerProfile.safeParse({ name: 'k', command: ['x'], transport: { kind: 'kubernetes', selector: 'app=worker' } });
  assert.equal(one.success, true);
});

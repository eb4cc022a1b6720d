/**
 * The stand-in engine on its own: the lifecycle strings of the pinned ai-dynamo 1.6.1 lifecycle,
 * each log format routed to exactly the real ranks, the warm-up logged once by the main process (or
 * per rank, skipped on a chosen rank), and both exits.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import test from 'node:test';
import { execa } from 'execa';
import { createLogRouter } from '../../../src/core/logs/router';
import { scratch, STANDIN, waitUntil } from './helpers';

async function runToCapture(args: string[]) {
  const dir = scratch('standin');
  const control = path.join(dir, 'ctl');
  fs.mkdirSync(control);
  const p = execa('python3', [STANDIN(), '--warmup-seconds', '0.05', '--load-seconds', '0', ...args], {
    env: { DYN_SNAPSHOT_CONTROL_DIR: control, NCCL_IB_DISABLE: '0' },
    reject: false,
    all: true,
  });
  await waitUntil(() => fs.existsSync(path.join(control, 'ready-for-snapshot')), 20_000, 'ready-for-snapshot');
  assert.equal(fs.readFileSync(path.join(control, 'ready-for-snapshot'), 'utf8'), 'ready');
  fs.writeFileSync(path.join(control, 'snapshot-complete'), 'done\n');
  const r = await p;
  return { r, control, out: String(r.all), dir };
}

test('vLLM format: exact lifecycle lines, per-rank prefixes, os._exit(0) after capture', async () => {
  const { r, out, control, dir } = await runToCapture(['--dp', '3', '--warmup-log', 'per-rank', '--skip-warmup-rank', '1']);
  assert.equal(r.exitCode, 0);
  for (const s of [
    'Snapshot mode enabled (watcher-driven signals)',
    "Overriding NCCL_IB_DISABLE='0' with '1' for snapshot mode because CRIU and cuda-checkpoint cannot restore InfiniBand state",
    'Pausing model',
    `Ready for snapshot. Polling for sentinel in ${control} (snapshot-complete or restore-complete)`,
    'Snapshot completion sentinel detected',
    'vLLM snapshot captured successfully',
    '\x1b[1;36m(EngineCore_DP2 pid=',
  ]) assert.ok(out.includes(s), `missing: ${s}`);
  const router = createLogRouter({ dir: path.join(dir, 'logs') });
  router.push('engine.log', out + '\n');
  assert.deepEqual(router.ranks(), ['main', 'DP0', 'DP1', 'DP2']);
  const warm = (rank: string) => router.tail(rank).some((l) => l.includes('vLLM snapshot warmup complete'));
  assert.deepEqual(['DP0', 'DP1', 'DP2'].map(warm), [true, false, true]);
  assert.deepEqual(fs.readdirSync(control), [], 'ready-for-snapshot and snapshot-complete are cleaned up');
  router.dispose();
});

test('SGLang and TRT-LLM formats route to DP/RANK ranks', async () => {
  for (const [fmt, backend, ranks, capture] of [
    ['sglang', 'sglang', ['main', 'DP0', 'DP1'], 'SGLang snapshot warmup complete'],
    ['trtllm', 'trtllm', ['main', 'RANK0', 'RANK1'], 'Initial TRT-LLM snapshot captured successfully; exiting without destroying the engine'],
    ['vllm', 'vllm', ['main', 'DP0', 'DP1'], 'vLLM snapshot warmup complete'],
  ] as const) {
    const { r, out, dir } = await runToCapture(['--dp', '2', '--log-format', fmt]);
    assert.equal(r.exitCode, 0);
    assert.ok(out.includes(capture), `${fmt}: ${capture}`);
    const router = createLogRouter({ dir: path.join(dir, 'logs'), backend });
    router.push('engine.log', out + '\n');
    assert.deepEqual(router.ranks(), [...ranks]);
    router.dispose();
  }
});

test('--exit-mode systemexit dies by SIGSEGV in the simulated teardown', async () => {
  const { r, out } = await runToCapture(['--dp', '1', '--exit-mode', 'systemexit']);
  assert.equal(r.signal, 'SIGSEGV');
  assert.ok(out.includes('Shutting down engine cores'));
  assert.ok(!out.includes('exiting without destroying the engine'));
});

test('a malformed completion request gets a 400 with the reason, and the engine keeps serving', async () => {
  const dir = scratch('standin-bad');
  const ep = path.join(dir, 'endpoint.json');
  const env: Record<string, string | undefined> = { ...process.env, DSW_ENDPOINT_FILE: ep };
  delete env.DYN_SNAPSHOT_CONTROL_DIR;
  delete env.SNAPSHOT_CONTROL_DIR;
  const p = execa('python3', [STANDIN(), '--dp', '1', '--load-seconds', '0', '--warmup-seconds', '0', '--port', '0'], { env, extendEnv: false, reject: false });
  try {
    await waitUntil(() => fs.existsSync(ep), 20_000, 'endpoint.json');
    const { url } = JSON.parse(fs.readFileSync(ep, 'utf8')) as { url: string };
    const post = (body: string) => fetch(`${url}/v1/completions`, { method: 'POST', body });
    // An empty prompt list and a max_tokens too large for an int used to drop the connection with a traceback.
    for (const body of ['{"prompt": []}', '{"prompt": "x", "max_tokens": 1e999}']) {
      const res = await post(body);
      assert.equal(res.status, 400, body);
      const err = (await res.json()) as { error: { message: string } };
      assert.ok(err.error.message.length > 0, body);
    }
    const ok = await post(JSON.stringify({ prompt: 'still there', max_tokens: 2 }));
    assert.equal(ok.status, 200);
    assert.equal(((await ok.json()) as { choices: unknown[] }).choices.length, 1);
  } finally {
    p.kill('SIGKILL');
    await p;
  }
});

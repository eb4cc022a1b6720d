/**
 * The real-GPU proof script (issue #7) on a machine without a GPU: its dry run names precisely what
 * is missing, its `--cpu` path runs the whole capture/restore pipeline end to end with real CRIU
 * (the CPU stand-in, then the GPU engine itself on CPU torch when some python has torch), and the
 * GPU engine compiles and answers --help without torch. Every run is bounded and cleaned up: the
 * script stops what it started; the test then checks that no process still names its work dir.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import test from 'node:test';
import { execa } from 'execa';
import { repoRoot } from '../../support/paths';

const RUN_SH = path.join(repoRoot, 'test', 'gpu', 'run.sh');
const ENGINE = path.join(repoRoot, 'test', 'gpu', 'gpu_engine.py');
const SMOKE = path.join(repoRoot, 'test', 'gpu', 'smoke.py');
const DEBS = path.join(repoRoot, 'test', 'gpu', 'criu-debs');

function skipOrFail(t: { skip(msg: string): void }, reason: string): void {
  if (process.env.DSW_REQUIRE_SYSTEM === '1') throw new Error(`required system part missing: ${reason}`);
  t.skip(reason);
}

/** bash run.sh …, in its own process group, killed as a group when it runs past `ms`. */
async function runScript(args: string[], ms: number, env: Record<string, string> = {}) {
  const r = await execa('bash', [RUN_SH, ...args], {
    cwd: repoRoot,
    reject: false,
    all: true,
    detached: true,
    timeout: ms,
    killSignal: 'SIGTERM',
    forceKillAfterDelay: 20_000,
    env: { DSW_GPU_LIMIT_S: String(Math.floor(ms / 1000) - 20), ...env },
  });
  return { code: r.exitCode ?? -1, out: String(r.all ?? ''), timedOut: r.timedOut };
}

/** The lines that say what went wrong, for assertion messages. */
function failures(out: string): string {
  return out.split('\n').filter((l) => /\bFAIL\b|^first failure|^missing:|Traceback|Error/.test(l)).slice(0, 12).join('\n');
}

function hasGpu(): boolean {
  return fs.existsSync('/dev/nvidiactl') || fs.existsSync('/proc/driver/nvidia/version');
}

function workDir(tag: string): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), `dsw-gpu-${tag}-`));
}

/** Processes whose argv or environment still names `dir` (everything the proof started carries it). */
function leftovers(dir: string): number[] {
  const out: number[] = [];
  for (const name of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
    for (const f of ['cmdline', 'environ']) {
      try {
        if (fs.readFileSync(`/proc/${name}/${f}`).includes(dir)) {
          out.push(Number(name));
          break;
        }
      } catch {
        /* gone or not ours to read */
      }
    }
  }
  return out;
}

function killLeftovers(dir: string): void {
  for (const pid of leftovers(dir)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      /* already gone */
    }
  }
}

/** A python that can import torch (any build), for the GPU engine on the CPU. */
async function torchPython(): Promise<string | undefined> {
  for (const py of [process.env.PYTHON, 'python3', '/usr/bin/python3'].filter(Boolean) as string[]) {
    const r = await execa(py, ['-c', 'import torch'], { reject: false, timeout: 60_000 });
    if (r.exitCode === 0) return py;
  }
  return undefined;
}

/** CRIU packages for the run: prepared here by prepare.sh (Debian's mirror), once. */
async function ensureDebs(): Promise<string | undefined> {
  const has = () => fs.existsSync(DEBS) && fs.readdirSync(DEBS).some((f) => /^criu_4\..*\.deb$/.test(f));
  if (has()) return undefined;
  const r = await execa('bash', [path.join(repoRoot, 'test', 'gpu', 'prepare.sh'), '--no-bundle'], { reject: false, all: true, timeout: 180_000 });
  return has() ? undefined : `test/gpu/prepare.sh could not download the CRIU packages: ${String(r.all).trim().split('\n').slice(-1)[0]}`;
}

/** Why the --cpu path cannot run here (its own dry run says), or undefined. */
async function cpuBlocker(extra: string[] = [], env: Record<string, string> = {}): Promise<string | undefined> {
  if (process.platform !== 'linux') return 'needs Linux';
  if (process.getuid?.() !== 0) return 'CRIU needs root';
  const debs = await ensureDebs();
  if (debs) return debs;
  const work = workDir('cpu-dry');
  try {
    const r = await runScript(['--cpu', '--dry-run', '--work', work, ...extra], 120_000, env);
    if (r.code === 0) return undefined;
    return r.out.split('\n').filter((l) => l.startsWith('missing:')).join('; ') || `dry run exited ${r.code}`;
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}

test('gpu_engine.py and smoke.py compile, and --help works without torch', async () => {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'dsw-pyc-'));
  try {
    for (const f of [ENGINE, SMOKE]) {
      // py_compile into a temp file: no __pycache__ left in the repository.
      const code = 'import py_compile, sys; py_compile.compile(sys.argv[1], cfile=sys.argv[2], doraise=True)';
      const r = await execa('python3', ['-c', code, f, path.join(tmp, 'x.pyc')], { reject: false, all: true, timeout: 30_000 });
      assert.equal(r.exitCode, 0, `${path.basename(f)}: ${r.all}`);
    }
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
  // -I: isolated, so a torch in the user's site-packages cannot hide an import at module level.
  const help = await execa('python3', ['-I', ENGINE, '--help'], { reject: false, all: true, timeout: 30_000 });
  assert.equal(help.exitCode, 0, String(help.all));
  assert.match(String(help.all), /--memory-mb/);
  assert.match(String(help.all), /--reference-prompt/);
  const src = fs.readFileSync(ENGINE, 'utf8');
  assert.doesNotMatch(src.split('\n').filter((l) => /^(import|from) /.test(l)).join('\n'), /torch/, 'torch is imported at module level');
});

test('run.sh --dry-run names what is missing and exits non-zero', async (t) => {
  if (hasGpu()) return t.skip('this machine has an NVIDIA GPU: the dry run may pass here');
  const work = workDir('dry');
  try {
    const started = Date.now();
    const r = await runScript(['--dry-run', '--work', work], 180_000);
    t.diagnostic(r.out);
    assert.notEqual(r.code, 0, 'a dry run without a GPU must fail');
    assert.match(r.out, /^missing: NVIDIA GPU\/driver \(/m);
    assert.match(r.out, /^missing: CUDA checkpoint \(no cuda-checkpoint binary and no driver checkpoint API/m);
    assert.match(r.out, /^missing: PyTorch with CUDA \(/m);
    assert.match(r.out, /^dry run: \d+ missing$/m);
    assert.match(r.out, /node .*the agent is driven directly with python/);
    assert.ok(Date.now() - started < 120_000, 'the dry run is quick');
    assert.deepEqual(leftovers(work), []);
  } finally {
    killLeftovers(work);
    fs.rmSync(work, { recursive: true, force: true });
  }
});

test('run.sh --cpu: the whole pipeline with real CRIU and the CPU stand-in, one table, every step PASS', async (t) => {
  const why = await cpuBlocker();
  if (why) return skipOrFail(t, why);
  const work = workDir('cpu');
  try {
    const r = await runScript(['--cpu', '--work', work], 240_000);
    t.diagnostic(r.out);
    assert.equal(r.timedOut, false, 'run.sh --cpu ran past its time limit');
    assert.equal(r.code, 0, `run.sh --cpu failed:\n${failures(r.out)}`);
    assert.match(r.out, /^RESULT: PASS \(\d+ steps, 0 failed\)/m);
    for (const step of ['criu_dump', 'criu_restore', 'source exits 0', 'kill \\+ PIDs gone', 'resume after restore', 'cleanup']) {
      assert.match(r.out, new RegExp(`^\\s+\\d+\\s+${step}\\s+.*\\bPASS\\b`, 'm'), step);
    }
    assert.equal((r.out.match(/smoke request \d\/5 .* PASS .*equal to the pre-capture answer/g) ?? []).length, 5);
    assert.match(r.out, /cuda_lock .* SKIP /, 'CUDA steps are skipped without a GPU');
    const result = JSON.parse(fs.readFileSync(path.join(work, 'result.json'), 'utf8')) as { ok: boolean; summary: { imageBytes: number } };
    assert.equal(result.ok, true);
    assert.ok(result.summary.imageBytes > 16 * 1048576, `image of ${result.summary.imageBytes} bytes`);
    assert.equal(fs.existsSync(path.join(work, 'run', 'images', 'checkpoint')), false, 'images are removed after the run');
    assert.deepEqual(leftovers(work), [], 'processes left over');
  } finally {
    killLeftovers(work);
    fs.rmSync(work, { recursive: true, force: true });
  }
});

test('run.sh past its hard time limit: FAIL, non-zero exit, nothing left running', async (t) => {
  const why = await cpuBlocker();
  if (why) return skipOrFail(t, why);
  const work = workDir('limit');
  try {
    // A 3 s limit against an engine that takes 8 s to load: the run is always stopped mid-way.
    const r = await runScript(['--cpu', '--work', work, '--engine-arg=--load-seconds=8'], 60_000, { DSW_GPU_LIMIT_S: '3' });
    t.diagnostic(r.out);
    assert.notEqual(r.code, 0);
    assert.match(r.out, /^FAIL: the proof did not finish within 3s/m);
    assert.match(r.out, /^RESULT: FAIL /m);
    assert.match(r.out, /^sweep of .*: nothing left$/m);
    assert.deepEqual(leftovers(work), [], 'processes left over');
  } finally {
    killLeftovers(work);
    fs.rmSync(work, { recursive: true, force: true });
  }
});

/** Builds test/gpu/fake/libcuda.c (the checkpoint part of the driver API, with its state machine) if a C compiler exists. */
async function fakeCuda(dir: string): Promise<string | undefined> {
  const src = path.join(repoRoot, 'test', 'gpu', 'fake', 'libcuda.c');
  const r = await execa('cc', ['-shared', '-fPIC', '-o', path.join(dir, 'libcuda.so.1'), src], { reject: false, all: true, timeout: 60_000 });
  return r.exitCode === 0 ? undefined : `no C compiler for the fake libcuda (${String(r.all ?? r.shortMessage).trim().split('\n')[0]})`;
}

test('run.sh --cpu --engine gpu: the GPU engine (CPU torch, 2 ranks) through capture and restore, CUDA steps via a fake driver API', async (t) => {
  const py = await torchPython();
  if (!py) return t.skip('no python here imports torch (Debian: apt-get install python3-torch); the GPU engine needs it even on the CPU');
  const why = await cpuBlocker(['--engine', 'gpu'], { PYTHON: py });
  if (why) return skipOrFail(t, why);
  const work = workDir('cpu-gpu-engine');
  const cuda = fs.mkdtempSync(path.join(os.tmpdir(), 'dsw-fake-cuda-'));
  try {
    const noCuda = await fakeCuda(cuda);
    if (noCuda) t.diagnostic(`${noCuda}: the CUDA steps are skipped in this run`);
    const env: Record<string, string> = { PYTHON: py, DSW_FAKE_CUDA_DIR: cuda };
    if (!noCuda) env.LD_LIBRARY_PATH = [cuda, process.env.LD_LIBRARY_PATH].filter(Boolean).join(':');
    const r = await runScript(['--cpu', '--engine', 'gpu', '--dp', '2', '--work', work], 300_000, env);
    t.diagnostic(r.out);
    assert.equal(r.code, 0, `run.sh --cpu --engine gpu failed:\n${failures(r.out)}`);
    assert.match(r.out, /ready-for-snapshot .* PASS .*reference \(engine before capture\)/);
    assert.equal((r.out.match(/smoke request \d\/5 .* PASS .*equal to the pre-capture answer/g) ?? []).length, 5);
    assert.match(r.out, /smoke request 1\/5 .*cached_tokens 0,/, 'pausing freed the prefix cache');
    if (!noCuda) {
      // The agent found the two ranks (torch mapped) and not the main process, and kept Dynamo's order.
      const calls = fs.readFileSync(path.join(cuda, 'calls.log'), 'utf8').trim().split('\n').map((l) => l.split(' '));
      assert.ok(calls.every((c) => c[2] === '0'), `a CUDA call failed: ${JSON.stringify(calls)}`);
      const pids = [...new Set(calls.map((c) => c[1]))];
      assert.equal(pids.length, 2, `two CUDA ranks: ${JSON.stringify(calls)}`);
      assert.deepEqual(calls.map((c) => c[0]), ['lock', 'lock', 'checkpoint', 'checkpoint', 'restore', 'restore', 'unlock', 'unlock']);
      for (const step of ['cuda_lock', 'cuda_checkpoint', 'cuda_restore', 'cuda_unlock']) {
        assert.match(r.out, new RegExp(`^\\s+\\d+\\s+${step}\\s+.*\\bPASS\\s+pid ${pids[0]},${pids[1]}`, 'm'), step);
      }
    }
    assert.deepEqual(leftovers(work), [], 'processes left over');
  } finally {
    killLeftovers(work);
    fs.rmSync(work, { recursive: true, force: true });
    fs.rmSync(cuda, { recursive: true, force: true });
  }
});

/**
 * The installed ai-dynamo package against what we recorded of it and what we built on it. When the pin
 * moves (scripts/python/requirements-nodeps.txt), this says what changed, point by point: file and env
 * names, the restore-context allow-list, what configure_snapshot_capture_env forces, function signatures,
 * the log strings of the lifecycle and the backends' snapshot modules, their exits, and which entrypoints
 * call the restore standby check. It also checks that our copies (the agent's and the settings' allow-list,
 * the stand-in's capture env) and our markers still match the package.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import test from 'node:test';
import { execa } from 'execa';
import { RESTORE_CONTEXT_NAMES } from '../../../src/core/settings/restoreContext';
import { matchMarker } from '../../../src/core/workflow/markers';
import { fixtures, repoRoot } from '../../support/paths';
import { findDynamo } from '../support/dynamo';
import { skipOrFail } from '../support/sshd';

const RECORDED = path.join(fixtures, 'upstream', 'ai-dynamo-1.6.1.contract.json');
const PROBE = path.join(repoRoot, 'test', 'system', 'dynamo', 'contract_probe.py');

interface Source { messages: string[]; exits: string[]; callsRestoreStandby: boolean }
interface Contract {
  versions: Record<string, string>;
  constants: Record<string, unknown>;
  restoreContextNames: string[];
  pollIntervalSec: number;
  captureEnv: Record<string, string>;
  signatures: Record<string, string | null>;
  sources: Record<string, Source>;
}

async function installed(python: string): Promise<Contract> {
  const r = await execa(python, [PROBE], { reject: false, all: true });
  assert.equal(r.exitCode, 0, String(r.all));
  return JSON.parse(r.stdout) as Contract;
}

/** Every difference as one line a person can act on ("sources.vllm/snapshot.py.messages: added …"). */
function differences(recorded: unknown, now: unknown, at = ''): string[] {
  if (Array.isArray(recorded) && Array.isArray(now)) {
    const was = new Set(recorded.map((x) => JSON.stringify(x)));
    const is = new Set(now.map((x) => JSON.stringify(x)));
    return [...[...is].filter((x) => !was.has(x)).map((x) => `${at}: added ${x}`), ...[...was].filter((x) => !is.has(x)).map((x) => `${at}: removed ${x}`)];
  }
  if (recorded && now && typeof recorded === 'object' && typeof now === 'object') {
    const a = recorded as Record<string, unknown>;
    const b = now as Record<string, unknown>;
    return [...new Set([...Object.keys(a), ...Object.keys(b)])].sort().flatMap((k) => {
      const p = at ? `${at}.${k}` : k;
      if (!(k in b)) return [`${p}: gone (was ${JSON.stringify(a[k])})`];
      if (!(k in a)) return [`${p}: new (${JSON.stringify(b[k])})`];
      return differences(a[k], b[k], p);
    });
  }
  return JSON.stringify(recorded) === JSON.stringify(now) ? [] : [`${at}: was ${JSON.stringify(recorded)}, is ${JSON.stringify(now)}`];
}

/** A logged format string with sample values, as it appears in a worker's log. */
function sample(message: string): string {
  return message.replace(/%r/g, "'x'").replace(/%s/g, '/snapshot-control').replace(/\{\}/g, '1.23');
}

test('the installed ai-dynamo matches the recorded contract (a moved pin lists every change)', async (t) => {
  const d = await findDynamo(repoRoot);
  if (!d.python) return skipOrFail(t, d.why!);
  const { source, ...recorded } = JSON.parse(fs.readFileSync(RECORDED, 'utf8')) as Contract & { source: { release: string } };
  const now = await installed(d.python);
  const changed = differences(recorded, now);
  assert.deepEqual(changed, [], `the installed package differs from ${source.release} as recorded in ${path.relative(repoRoot, RECORDED)}:\n  ${changed.join('\n  ')}`);
});

test('our copies of the contract match the installed package', async (t) => {
  const d = await findDynamo(repoRoot);
  if (!d.python) return skipOrFail(t, d.why!);
  const now = await installed(d.python);
  assert.deepEqual([...RESTORE_CONTEXT_NAMES].sort(), now.restoreContextNames, 'src/core/settings/restoreContext.ts');
  const py = await execa(d.python, ['-c', [
    'import importlib.util, json, sys',
    'def load(n, p):',
    '    s = importlib.util.spec_from_file_location(n, p); m = importlib.util.module_from_spec(s); s.loader.exec_module(m); return m',
    `a = load("dsw_agent", ${JSON.stringify(path.join(repoRoot, 'media', 'agent', 'dsw_agent.py'))})`,
    `e = load("standin_engine", ${JSON.stringify(path.join(repoRoot, 'media', 'engine', 'standin_engine.py'))})`,
    'print(json.dumps({"agent": sorted(a.RESTORE_CONTEXT_NAMES), "standin": sorted(e.RESTORE_ENV_NAMES), "captureEnv": sorted(n for n, _v, _w in e.CAPTURE_ENV)}))',
  ].join('\n')]);
  const ours = JSON.parse(py.stdout) as { agent: string[]; standin: string[]; captureEnv: string[] };
  assert.deepEqual(ours.agent, now.restoreContextNames, 'media/agent/dsw_agent.py RESTORE_CONTEXT_NAMES');
  assert.deepEqual(ours.standin, now.restoreContextNames, 'media/engine/standin_engine.py RESTORE_ENV_NAMES');
  // TORCH_NCCL_DUMP_ON_TIMEOUT is a setdefault, not an override: it logs nothing and keeps a user value.
  assert.deepEqual(ours.captureEnv, Object.keys(now.captureEnv).filter((k) => k !== 'TORCH_NCCL_DUMP_ON_TIMEOUT'), 'media/engine/standin_engine.py CAPTURE_ENV');
});

test('every lifecycle line of the installed package is a marker or a note we know', async (t) => {
  const d = await findDynamo(repoRoot);
  if (!d.python) return skipOrFail(t, d.why!);
  const now = await installed(d.python);
  // Lines that are not lifecycle steps: failures reported elsewhere, failover-lock chatter, a disaggregated-only line.
  const notLifecycle = new Set([
    'Failed to clean up %s at %s',
    '[Shadow] Engine paused, startup probe now passing, waiting for lock',
    '[Shadow] Lock acquired, waking engine',
    'Ignoring unsupported snapshot restore env %s',
    'Start of pd disaggregation warmup ...',
  ]);
  const unknown: string[] = [];
  for (const [file, s] of Object.entries(now.sources)) {
    for (const m of s.messages) if (!notLifecycle.has(m) && !matchMarker(sample(m))) unknown.push(`${file}: ${JSON.stringify(m)}`);
  }
  assert.deepEqual(unknown, [], `lines the workflow would not recognise:\n  ${unknown.join('\n  ')}`);
  // The exits we judge and lint: vLLM and TRT-LLM leave with os._exit(0), SGLang still raises SystemExit(0).
  assert.deepEqual(now.sources['vllm/snapshot.py']?.exits, ['os._exit(0)']);
  assert.deepEqual(now.sources['trtllm/snapshot.py']?.exits, ['os._exit(0)']);
  assert.deepEqual(now.sources['sglang/snapshot.py']?.exits, ['raise SystemExit(0)']);
  for (const b of ['vllm', 'sglang', 'trtllm']) assert.equal(now.sources[`${b}/__main__.py`]?.callsRestoreStandby, true, `${b}/__main__.py calls maybe_run_restore_standby_mode`);
});

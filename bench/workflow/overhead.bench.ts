/**
 * Workflow overhead: a full protocol-mode capture cycle driven by the workflow (agent hello, start,
 * follow, warm-up and ready verdicts, capture release, source exit verdict, run record) against a
 * plain shell script doing the same steps by hand (start, wait for the sentinel, write the release,
 * wait for exit), alternating, in the same run. Also the ready-to-release reaction: a 1 ms poller in
 * this process watches the control directory and times ready-for-snapshot → snapshot-complete.
 *
 *   node scripts/build.mjs && node out/bench/workflow/overhead.bench.js [--rounds 5] [--load 2] [--warmup 1]
 *
 * --load / --warmup are the stand-in's model-load and per-rank warm-up seconds (a real engine takes
 * minutes; the stand-in's defaults of 0.2 s / 0.3 s would measure mostly fixed costs).
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { localDemoProfile } from '../../src/core/settings/builtinProfiles';
import { WorkerProfile } from '../../src/core/settings/workerProfile';
import { runWorkflow } from '../../src/core/workflow/runner';
import { WorkerSession } from '../../src/core/workflow/session';
import { createConnection } from '../../src/transport/index';

const arg = (name: string, dflt: number): number => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : dflt;
};
const rounds = arg('rounds', 5);
const load = arg('load', 2);
const warmup = arg('warmup', 1);

const root = path.resolve(__dirname, '..', '..', '..');
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'dsw-bench-wf-'));
const engineArgs = ['--dp', '2', '--load-seconds', String(load), '--warmup-seconds', String(warmup), '--no-color'];

/** Times ready-for-snapshot → snapshot-complete in `dir` by polling every 1 ms (both files are short-lived). */
function watchReaction(dirOf: () => string | undefined): { stop: () => number | undefined } {
  let ready: number | undefined;
  let release: number | undefined;
  const t = setInterval(() => {
    const dir = dirOf();
    if (!dir) return;
    const now = performance.now();
    if (ready === undefined && fs.existsSync(path.join(dir, 'ready-for-snapshot'))) ready = now;
    if (ready !== undefined && release === undefined && fs.existsSync(path.join(dir, 'snapshot-complete'))) release = now;
  }, 1);
  return {
    stop: () => {
      clearInterval(t);
      return ready !== undefined && release !== undefined ? release - ready : undefined;
    },
  };
}

async function viaWorkflow(i: number): Promise<{ ms: number; reactionMs?: number; agentReactionMs?: number }> {
  const profile = WorkerProfile.parse({ ...localDemoProfile(root, engineArgs.slice(2)), name: 'bench-demo' });
  const conn = createConnection(profile, { sshPath: 'ssh', kubectlPath: 'kubectl', extensionRoot: root, scratchDir: path.join(scratch, 'wf') });
  const session = new WorkerSession(profile, conn);
  const watch = watchReaction(() => session.handle?.controlDir);
  const t0 = performance.now();
  const { record } = await runWorkflow(session, { runId: `bench-${process.pid}-${i}`, steps: ['connect', 'preflight', 'start', 'warmup', 'ready', 'capture', 'sourceExit'] });
  const ms = performance.now() - t0;
  const reactionMs = watch.stop();
  await session.dispose();
  const bad = record.steps.filter((s) => s.state === 'failed' || s.state === 'cancelled');
  if (bad.length) throw new Error(`workflow run failed: ${bad.map((s) => `${s.name}: ${s.verdict}`).join('; ')}`);
  const agentReactionMs = record.steps.find((s) => s.name === 'capture')?.evidence.find((e) => /snapshot-complete written/.test(e.text))?.valueMs;
  if (process.argv.includes('--steps')) console.log('  ' + record.steps.filter((s) => s.startedAt !== undefined).map((s) => `${s.name} ${s.endedAt! - s.startedAt!}`).join(', '));
  return { ms, reactionMs, agentReactionMs };
}

const SCRIPT = `set -e
D=$1; shift
rm -rf "$D"; mkdir -p "$D/control"
DYN_SNAPSHOT_CONTROL_DIR="$D/control" SNAPSHOT_CONTROL_DIR="$D/control" "$@" >"$D/engine.log" 2>&1 &
pid=$!
while [ ! -e "$D/control/ready-for-snapshot" ]; do sleep 0.01; done
printf 'done\\n' > "$D/control/.snapshot-complete.tmp" && mv "$D/control/.snapshot-complete.tmp" "$D/control/snapshot-complete"
wait $pid
`;

async function viaShell(i: number): Promise<{ ms: number; reactionMs?: number }> {
  const dir = path.join(scratch, `sh-${i}`);
  const watch = watchReaction(() => path.join(dir, 'control'));
  const t0 = performance.now();
  await new Promise<void>((resolve, reject) =>
    execFile('sh', ['-c', SCRIPT, 'sh', dir, 'python3', path.join(root, 'media/engine/standin_engine.py'), ...engineArgs], (e) => (e ? reject(e) : resolve())),
  );
  const ms = performance.now() - t0;
  return { ms, reactionMs: watch.stop() };
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

async function main(): Promise<void> {
  const wf: Awaited<ReturnType<typeof viaWorkflow>>[] = [];
  const sh: Awaited<ReturnType<typeof viaShell>>[] = [];
  await viaWorkflow(-1); // warm the page cache and Python's bytecode cache for both
  await viaShell(-1);
  for (let i = 0; i < rounds; i++) {
    // Alternate so that background load hits both sides alike.
    if (i % 2 === 0) {
      wf.push(await viaWorkflow(i));
      sh.push(await viaShell(i));
    } else {
      sh.push(await viaShell(i));
      wf.push(await viaWorkflow(i));
    }
    console.log(`round ${i + 1}: workflow ${wf.at(-1)!.ms.toFixed(0)} ms (release ${wf.at(-1)!.reactionMs?.toFixed(1)} ms after ready), shell ${sh.at(-1)!.ms.toFixed(0)} ms (release ${sh.at(-1)!.reactionMs?.toFixed(1)} ms)`);
  }
  const w = median(wf.map((r) => r.ms));
  const s = median(sh.map((r) => r.ms));
  const react = median(wf.map((r) => r.reactionMs ?? Number.NaN));
  const agentReact = median(wf.map((r) => r.agentReactionMs ?? Number.NaN));
  const shReact = median(sh.map((r) => r.reactionMs ?? Number.NaN));
  const result = {
    rounds, load, warmup,
    workflowMedianMs: Math.round(w),
    shellMedianMs: Math.round(s),
    ratio: Number((w / s).toFixed(3)),
    overheadMs: Math.round(w - s),
    readyToReleaseMs: Number(react.toFixed(1)),
    readyToReleaseOnWorkerMs: agentReact,
    shellReadyToReleaseMs: Number(shReact.toFixed(1)),
  };
  console.log(`workflow/overhead: ratio ${result.ratio} (target ≤ 1.05): workflow ${result.workflowMedianMs} ms vs shell ${result.shellMedianMs} ms (+${result.overheadMs} ms); ready → release ${result.readyToReleaseMs} ms (target < 20 ms; shell ${result.shellReadyToReleaseMs} ms)`);
  fs.mkdirSync(path.join(root, 'bench', 'results'), { recursive: true });
  fs.writeFileSync(path.join(root, 'bench', 'results', 'workflow-overhead.json'), JSON.stringify(result, null, 2) + '\n');
  fs.rmSync(scratch, { recursive: true, force: true });
}

main().catch((e: unknown) => {
  console.error(e);
  process.exitCode = 1;
});

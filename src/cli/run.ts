/**
 * `dsw run --worker NAME [--steps a,b,...] [--format text|json] [--config FILE] [--records DIR]`:
 * the snapshot workflow without VS Code. Progress goes to stderr, the report to stdout (Markdown text,
 * or the versioned run record as JSON). Exit status 0 when no step failed, 1 when one did (or the run
 * was cancelled), 2 on usage errors. Ctrl-C cancels: what the run started is stopped, the report
 * still prints.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { allProfiles } from '../core/settings/builtinProfiles';
import { formatSettingProblem } from '../core/settings/settings';
import type { WorkerProfile } from '../core/settings/workerProfile';
import type { ConnectionEnvironment } from '../core/worker/types';
import { workspaceExitCauseFinder } from '../core/workflow/exitCause';
import { inProcessLinter } from '../core/workflow/exitCauseLint';
import { parseSteps } from '../core/workflow/plan';
import { loadSettingsFile } from '../core/workflow/profileFile';
import { renderReport, ms, stateMark } from '../core/workflow/report';
import { runWorkflow } from '../core/workflow/runner';
import { WorkerSession } from '../core/workflow/session';
import { STEP_TITLES, type RunEvent, type StepName } from '../core/workflow/types';
import { createLogRouter } from '../core/logs/router';
import { createConnection } from '../transport/index';
import { kubeSourceFor } from './kubeSource';

const USAGE = `usage: dsw run --worker NAME [--steps a,b,...] [--format text|json] [--config FILE] [--records DIR]

  --worker NAME    a profile from .vscode/settings.json (dynamoSnapshot.workers), --config FILE, or local-demo
  --steps LIST     steps to run (prerequisites are added): connect,preflight,start,warmup,ready,capture,
                   sourceExit,restore,resume,smoke,report (default: all)
  --format F       text (Markdown report, default) or json (the versioned run record)
  --config FILE    settings file with the dynamoSnapshot.workers shape (default: ./.vscode/settings.json)
  --records DIR    also write the run record and per-rank logs there

Exit status: 0 no step failed, 1 a step failed or the run was cancelled, 2 usage error.`;

interface Args {
  worker: string;
  steps?: StepName[];
  format: 'text' | 'json';
  config?: string;
  records?: string;
}

function parseArgs(argv: string[]): Args | { error: string } | 'help' {
  const out: Partial<Args> = { format: 'text' };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    const [flag, inline] = a.startsWith('--') && a.includes('=') ? [a.slice(0, a.indexOf('=')), a.slice(a.indexOf('=') + 1)] : [a, undefined];
    const value = (): string | undefined => inline ?? argv[++i];
    switch (flag) {
      case '-h':
      case '--help':
        return 'help';
      case '--worker':
        out.worker = value();
        break;
      case '--steps': {
        const v = value();
        if (!v) return { error: '--steps needs a comma-separated list' };
        const r = parseSteps(v);
        if (r.error) return { error: r.error };
        out.steps = r.steps;
        break;
      }
      case '--format': {
        const v = value();
        if (v !== 'text' && v !== 'json') return { error: `--format must be text or json (got ${JSON.stringify(v)})` };
        out.format = v;
        break;
      }
      case '--config':
        out.config = value();
        if (!out.config) return { error: '--config needs a file' };
        break;
      case '--records':
        out.records = value();
        if (!out.records) return { error: '--records needs a directory' };
        break;
      default:
        return { error: `unknown option ${JSON.stringify(a)}` };
    }
  }
  if (!out.worker) return { error: '--worker NAME is required' };
  return out as Args;
}

/** The repository / extension root: dist/cli.js sits one level below it. */
function extensionRoot(): string {
  const up = path.resolve(__dirname, '..');
  return fs.existsSync(path.join(up, 'media', 'engine')) ? up : process.cwd();
}

/** One stderr line per step transition and per first marker of a rank (evidence updates are not news). */
function progress(t0: number): (e: RunEvent) => void {
  const at = (t: number): string => `[${((t - t0) / 1000).toFixed(1).padStart(6)} s]`;
  const last = new Map<string, string>();
  const markers = new Set<string>();
  return (e) => {
    if (e.type === 'run-started') {
      process.stderr.write(`${at(e.at)} run ${e.runId} on ${e.worker}: ${e.steps.join(' → ')}\n`);
    } else if (e.type === 'step') {
      const s = e.step;
      if (last.get(s.name) === s.state || s.state === 'pending' || s.state === 'skipped') return;
      last.set(s.name, s.state);
      if (s.state === 'running') process.stderr.write(`${at(s.startedAt ?? Date.now())} ${STEP_TITLES[s.name]}…\n`);
      else {
        const took = s.startedAt !== undefined && s.endedAt !== undefined ? ` (${ms(s.endedAt - s.startedAt)})` : '';
        process.stderr.write(`${at(s.endedAt ?? Date.now())} ${STEP_TITLES[s.name]}: ${stateMark(s.state)}${took} — ${s.verdict ?? ''}\n`);
      }
    } else if (e.type === 'rank-marker') {
      const key = `${e.rank}/${e.phase}`;
      if (markers.has(key)) return;
      markers.add(key);
      process.stderr.write(`${at(e.at)}   ${e.rank}: ${e.phase}\n`);
    } else if (e.type === 'run-ended') {
      process.stderr.write(`${at(e.at)} run ${e.outcome}\n`);
    }
  };
}

export async function runMain(argv: string[]): Promise<number> {
  const args = parseArgs(argv);
  if (args === 'help') {
    process.stdout.write(USAGE + '\n');
    return 0;
  }
  if ('error' in args) {
    process.stderr.write(`dsw run: ${args.error}\n\n${USAGE}\n`);
    return 2;
  }
  const root = extensionRoot();
  const configFile = args.config ? path.resolve(args.config) : path.join(process.cwd(), '.vscode', 'settings.json');
  let loaded;
  try {
    loaded = loadSettingsFile(configFile, args.config !== undefined);
  } catch (e) {
    process.stderr.write(`dsw run: ${e instanceof Error ? e.message : String(e)}\n`);
    return 2;
  }
  for (const p of loaded.problems) process.stderr.write(`dsw run: ${formatSettingProblem(p)} (in ${configFile})\n`);
  const profiles: WorkerProfile[] = allProfiles(loaded.settings.workers, root);
  const profile = profiles.find((p) => p.name === args.worker);
  if (!profile) {
    process.stderr.write(`dsw run: no worker profile named "${args.worker}"; known: ${profiles.map((p) => p.name).join(', ')}\n`);
    return 2;
  }
  const g = loaded.settings.general;
  const scratch = path.join(os.tmpdir(), `dsw-${os.userInfo().uid}`);
  const env: ConnectionEnvironment = {
    sshPath: g['ssh.path'],
    sshConfigFile: g['ssh.configFile'] || undefined,
    kubectlPath: g['kubectl.path'],
    kubeconfig: g['kubectl.kubeconfig'] || undefined,
    extensionRoot: root,
    scratchDir: scratch,
  };
  const session = new WorkerSession(profile, createConnection(profile, env));
  session.kube = kubeSourceFor(profile, env);
  const ctl = new AbortController();
  let interrupts = 0;
  const onSigint = (sig: NodeJS.Signals): void => {
    interrupts++;
    // Quitting at once on the second signal: the shell's 128 + signal number (130 SIGINT, 143 SIGTERM).
    if (interrupts > 1) process.exit(sig === 'SIGTERM' ? 143 : 130);
    process.stderr.write('dsw run: cancelling (stopping what the run started; Ctrl-C again to quit at once)\n');
    ctl.abort();
  };
  process.on('SIGINT', onSigint);
  process.on('SIGTERM', onSigint);
  const t0 = Date.now();
  let router: ReturnType<typeof createLogRouter> | undefined;
  if (args.records) {
    router = createLogRouter({ dir: path.join(path.resolve(args.records), `logs-${t0}`), backend: profile.backend, merged: true });
    const r = router;
    session.listen({ onAgentEvent: (e) => e.type === 'log' && r.push(e.file, e.bytes ?? e.data) });
  }
  try {
    const result = await runWorkflow(session, {
      steps: args.steps,
      signal: ctl.signal,
      emit: progress(t0),
      findExitCause: workspaceExitCauseFinder(process.cwd(), inProcessLinter()),
      recordsDir: args.records ? path.resolve(args.records) : undefined,
      localLogDir: router?.dir,
    });
    if (result.saveError) process.stderr.write(`dsw run: ${result.saveError}\n`);
    const r = result.record;
    if (args.format === 'json') process.stdout.write(JSON.stringify({ ...r, recordFile: result.file }, null, 2) + '\n');
    else process.stdout.write(renderReport(r, result.file));
    return r.steps.some((s) => s.state === 'failed' || s.state === 'cancelled') ? 1 : 0;
  } finally {
    router?.dispose();
    await session.dispose().catch(() => undefined);
    process.off('SIGINT', onSigint);
    process.off('SIGTERM', onSigint);
  }
}

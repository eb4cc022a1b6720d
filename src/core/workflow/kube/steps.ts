/**
 * The run on a kubernetes profile in observe mode (`profile.kubernetes`): Dynamo's operator starts the
 * checkpoint source and its snapshot agent captures and restores, so each step here polls the cluster
 * (pods, annotations, conditions, events, the DynamoCheckpoint, the agent's log) until the parse.ts /
 * observe.ts judges decide, within the profile's timeouts, and cancellably. With `snapshotctl` set,
 * capture and restore are triggered first. Nothing here runs on the worker, so nothing needs stopping.
 */
import type { HelloEvent } from '../../protocol/agentEvents';
import type { RunContext } from '../context';
import type { Evidence } from '../types';
import type { Verdict } from '../warmupVerdict';
import { judgeWarmup } from '../warmupVerdict';
import { CancelledError, formatSeconds, TimeoutError } from '../waiter';
import { judgeKubeCapture, judgeKubeRestore, judgeKubeSourceExit, snapshotctlArgs, type KubeObservation, type KubeSource } from './observe';
import { parseCheckpoint, parseEvents, parsePod, parseSnapshotctl, parseTimingSummaries, type PodSnapshotState } from './parse';

export interface CommandResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** What a kubernetes run observes through (kubectl via the transport) and triggers with (snapshotctl). */
export interface KubeRunSource extends KubeSource {
  /** Runs the profile's snapshotctl with these arguments (absent: no snapshotctl configured). */
  snapshotctl?(args: string[], signal: AbortSignal): Promise<CommandResult>;
  /** The last lines of a pod container's own log (`kubectl logs`), for warm-up / resume lines and exit evidence. */
  podLog?(pod: string, container: string | undefined): Promise<string>;
}

/** One observation plus what the optional sources could not say (RBAC, a missing CRD …). */
export interface KubeSeen extends KubeObservation {
  at: number;
  problems: string[];
}

function settings(rc: RunContext) {
  const k = rc.session.profile.kubernetes;
  const t = rc.session.profile.transport;
  if (!k || t.kind !== 'kubernetes') throw new Error('not a kubernetes observe-mode profile');
  return { k, t, container: t.container ?? 'main' };
}

function source(rc: RunContext): KubeRunSource {
  const s = rc.session.kube;
  if (!s) throw new Error('no kubectl source for this kubernetes profile (the caller must provide one)');
  return s;
}

const message = (e: unknown): string => (e instanceof Error ? e.message : String(e));

/** Reads pods, events, the checkpoint and the agent log once. Pods and events must work; the rest may fail (said). */
export async function observeOnce(rc: RunContext): Promise<KubeSeen> {
  const src = source(rc);
  const { k, container } = settings(rc);
  const problems: string[] = [];
  const [podsRaw, eventsRaw, cpRaw, agentLog] = await Promise.all([
    src.pods(),
    src.events(),
    src.checkpoint ? src.checkpoint().catch((e: unknown) => (problems.push(`DynamoCheckpoint ${k.checkpoint}: ${message(e)}`), undefined)) : undefined,
    src.agentLog ? src.agentLog().catch((e: unknown) => (problems.push(`snapshot agent logs: ${message(e)}`), undefined)) : undefined,
  ]);
  const pods = podsRaw.map(parsePod);
  // Events of the whole namespace: keep those about the observed pods and the checkpoint objects.
  const names = new Set(pods.map((p) => p.name));
  const events = parseEvents(eventsRaw).filter((e) => !e.object || !e.object.startsWith('Pod/') || names.has(e.object.slice(4)));
  const seen: KubeSeen = { container, pods, events, agentLog, at: rc.now(), problems };
  if (cpRaw !== undefined) seen.checkpoint = parseCheckpoint(cpRaw);
  else if (k.checkpoint && src.checkpoint && !problems.length) problems.push(`DynamoCheckpoint ${k.checkpoint} does not exist (yet)`);
  rc.session.kubeLast = seen;
  return seen;
}

/** Polls until `judge` decides; TimeoutError after `seconds`, CancelledError when the run is cancelled. */
export async function pollKube<T>(rc: RunContext, what: string, seconds: number, judge: (o: KubeSeen) => T | undefined): Promise<T> {
  const { k } = settings(rc);
  const end = rc.now() + seconds * 1000;
  for (;;) {
    if (rc.signal.aborted) throw new CancelledError();
    const o = await observeOnce(rc);
    if (rc.signal.aborted) throw new CancelledError();
    const v = judge(o);
    if (v !== undefined) return v;
    const left = end - rc.now();
    if (left <= 0) throw new TimeoutError(what, seconds);
    await new Promise<void>((resolve) => {
      const timer = setTimeout(done, Math.min(left, k.pollSeconds * 1000));
      function done(): void {
        clearTimeout(timer);
        rc.signal.removeEventListener('abort', done);
        resolve();
      }
      rc.signal.addEventListener('abort', done, { once: true });
    });
  }
}

const sourcePod = (o: KubeObservation): PodSnapshotState | undefined => o.pods.find((p) => p.role === 'checkpoint-source') ?? o.pods.find((p) => p.role !== 'restore-target');
const targetPod = (o: KubeObservation): PodSnapshotState | undefined => o.pods.find((p) => p.role === 'restore-target') ?? o.pods.find((p) => o.container in p.restoreStatus);

function podEvidence(o: KubeSeen): Evidence[] {
  return o.pods.map((p) => ({
    kind: 'note',
    text: `pod ${p.name}: ${p.phase ?? '?'}${p.role !== 'other' ? `, ${p.role}` : ''}, ready ${JSON.stringify(p.ready)}${Object.keys(p.restoreStatus).length ? `, restore-status ${JSON.stringify(p.restoreStatus)}` : ''}`,
  }));
}

function tail(text: string | undefined, n: number, rank: string): Evidence[] {
  return (text ?? '').split('\n').filter(Boolean).slice(-n).map((line) => ({ kind: 'log', rank, text: line }));
}

async function podLogOf(rc: RunContext, pod: string | undefined): Promise<string | undefined> {
  const src = source(rc);
  if (!pod || !src.podLog) return undefined;
  const { t } = settings(rc);
  return src.podLog(pod, t.container).catch(() => undefined);
}

export async function kubeConnectStep(rc: RunContext): Promise<void> {
  const { t } = settings(rc);
  // A run from connect watches a new cycle: forget the previous one's lines, times and observation.
  rc.session.resetForNewSource();
  rc.session.kubeLast = undefined;
  const o = await pollKube(rc, 'a pod', rc.session.profile.timeouts.connectSeconds, (x) => x);
  const where = `${t.namespace ? `namespace ${t.namespace}` : 'the default namespace'}${t.context ? `, context ${t.context}` : ''}`;
  if (o.pods.length === 0) {
    rc.book.finish('connect', 'failed', `no pod ${t.pod ? `named ${t.pod}` : `matches ${t.selector}`} in ${where}`);
    return;
  }
  rc.book.finish('connect', 'passed', `observing ${o.pods.length} pod${o.pods.length === 1 ? '' : 's'} in ${where} through kubectl`, podEvidence(o));
}

export async function kubePreflightStep(rc: RunContext): Promise<void> {
  const { k } = settings(rc);
  const o = rc.session.kubeLast ?? (await observeOnce(rc));
  const problems: string[] = [];
  const warnings = [...o.problems];
  const notes: string[] = ["Kubernetes worker in observe mode: Dynamo's snapshot agent captures and restores; this run watches it"];
  if (!k.checkpoint) notes.push('no kubernetes.checkpoint: capture is judged from events and the agent\'s Checkpoint timing summary');
  if (!k.agentSelector) warnings.push('no kubernetes.agentSelector: the agent\'s Checkpoint / Restore timing summaries are not observed');
  if (k.snapshotctl) {
    const src = source(rc);
    const r = await src.snapshotctl!(['--help'], rc.signal).catch((e: unknown) => ({ code: null, stdout: '', stderr: message(e) }));
    if (r.code === null) problems.push(`snapshotctl (${k.snapshotctl.join(' ')}) cannot run: ${r.stderr.trim() || 'no exit status'}`);
    else notes.push(`snapshotctl triggers capture${k.manifest ? '' : ' (only with kubernetes.manifest)'} and restore: ${k.snapshotctl.join(' ')}`);
  } else notes.push('no kubernetes.snapshotctl: capture and restore are not triggered, only observed');
  const evidence: Evidence[] = [...problems, ...warnings, ...notes].map((text) => ({ kind: 'note', text }));
  if (problems.length) rc.book.finish('preflight', 'failed', problems.join('; '), evidence);
  else if (warnings.length) rc.book.finish('preflight', 'warned', warnings.join('; '), evidence);
  else rc.book.finish('preflight', 'passed', `ready to observe${k.checkpoint ? ` DynamoCheckpoint ${k.checkpoint}` : ''}`, evidence);
}

/** The source pod is ready (its readiness probe is `cat /snapshot-control/ready-for-snapshot`) or already past it. */
function judgeReady(o: KubeSeen): { how: string } | undefined {
  const src = sourcePod(o);
  if (!src) return undefined;
  if (src.ready[o.container]) return { how: `pod ${src.name} container ${o.container} Ready (readiness probe: ready-for-snapshot)` };
  if (src.terminated[o.container] || o.checkpoint?.state === 'ready' || o.checkpoint?.state === 'failed') return { how: `pod ${src.name} is already past ready-for-snapshot (${src.terminated[o.container] ? 'container terminated' : `checkpoint ${o.checkpoint!.state}`})` };
  return undefined;
}

export async function kubeWarmupStep(rc: RunContext): Promise<void> {
  const { session, book } = rc;
  await pollKube(rc, 'ready-for-snapshot (source pod Ready)', session.profile.timeouts.readySeconds, judgeReady);
  const src = sourcePod(session.kubeLast!);
  const log = await podLogOf(rc, src?.name);
  if (log === undefined) {
    book.finish('warmup', 'skipped', `the source pod's log could not be read, so the warm-up lines are not judged`);
    return;
  }
  session.tracker.clear();
  for (const line of log.split('\n').filter(Boolean)) session.tracker.push(line.replace(/^\d{4}-\d\d-\d\dT\S+Z /, ''), rc.now());
  const v = judgeWarmup(session.tracker, session.tracker.expectedRanks(session.profile.dataParallelSize));
  // The lines arrive in one read, so the tracker's times between them mean nothing here.
  book.finish('warmup', v.state, `${v.verdict.replace(/ in \d+(\.\d+)? m?s before/, ' before')} (from pod ${src!.name}'s log)`, v.evidence);
}

export async function kubeReadyStep(rc: RunContext): Promise<void> {
  const { session } = rc;
  const t0 = rc.now();
  const r = await pollKube(rc, 'ready-for-snapshot (source pod Ready)', session.profile.timeouts.readySeconds, judgeReady);
  session.stage = 'started';
  session.startedAt ??= t0;
  const o = session.kubeLast!;
  const evidence: Evidence[] = [...podEvidence(o), ...tail(o.agentLog?.split('\n').filter((l) => /awaiting quiesce|Starting checkpoint operation/.test(l)).join('\n'), 3, 'agent')];
  rc.book.finish('ready', 'passed', r.how, evidence);
}

function summaryMetrics(rc: RunContext, log: string | undefined, kind: 'checkpoint' | 'restore'): Record<string, number> | undefined {
  const s = log ? parseTimingSummaries(log).filter((x) => x.kind === kind).at(-1) : undefined;
  if (!s) return undefined;
  const prefix = kind === 'checkpoint' ? 'capture.' : 'restore.';
  rc.metrics.phaseTimingsMs = { ...rc.metrics.phaseTimingsMs, ...Object.fromEntries(Object.entries(s.fieldsMs).map(([key, v]) => [prefix + key, v])) };
  return s.fieldsMs;
}

async function trigger(rc: RunContext, args: string[]): Promise<Evidence[]> {
  const r = await source(rc).snapshotctl!(args, rc.signal);
  if (rc.signal.aborted) throw new CancelledError();
  const kv = parseSnapshotctl(r.stdout);
  const evidence: Evidence[] = [{ kind: 'note', text: `snapshotctl ${args.join(' ')} → exit ${r.code ?? '?'}${Object.keys(kv).length ? ` (${Object.entries(kv).map(([a, b]) => `${a}=${b}`).join(', ')})` : ''}` }];
  if (r.code !== 0) throw Object.assign(new Error(`snapshotctl ${args[0]} failed (exit ${r.code ?? '?'}): ${(r.stderr || r.stdout).trim().split('\n').slice(-3).join(' | ')}`), { evidence });
  return evidence;
}

export async function kubeCaptureStep(rc: RunContext): Promise<void> {
  const { session, book } = rc;
  const { k, t, container } = settings(rc);
  const t0 = rc.now();
  if (k.snapshotctl && k.manifest) {
    book.add('capture', ...(await trigger(rc, snapshotctlArgs({ action: 'checkpoint', manifest: k.manifest, containers: [container], namespace: t.namespace, checkpointId: k.checkpointId }))));
  }
  const v = await pollKube(rc, 'the checkpoint', session.profile.timeouts.captureSeconds, (o): Verdict | undefined => {
    const judged = judgeKubeCapture(o);
    if (judged || k.checkpoint) return judged;
    // No checkpoint object to watch: the agent's summary (or the source's exit after it) says it is done.
    const summary = o.agentLog ? parseTimingSummaries(o.agentLog).filter((s) => s.kind === 'checkpoint').at(-1) : undefined;
    if (summary) return { state: 'passed', verdict: `the snapshot agent logged its Checkpoint timing summary (agent: ${Math.round(summary.fieldsMs.duration ?? 0)} ms)`, evidence: Object.entries(summary.fieldsMs).map(([key, ms]) => ({ kind: 'timing', text: `checkpoint ${key}`, valueMs: ms })) };
    return undefined;
  });
  const fields = summaryMetrics(rc, session.kubeLast?.agentLog, 'checkpoint');
  rc.metrics.captureMs = fields?.duration ?? rc.now() - t0;
  if (v.state !== 'failed') session.stage = 'captured';
  session.capturedAt = rc.now();
  book.finish('capture', v.state, v.verdict, [...book.get('capture').evidence, ...v.evidence, { kind: 'timing', text: 'capture observed (step start → decided)', valueMs: rc.now() - t0 }]);
}

export async function kubeSourceExitStep(rc: RunContext): Promise<void> {
  const { session, book } = rc;
  const v = await pollKube(rc, 'the source container exit', session.profile.timeouts.exitSeconds, judgeKubeSourceExit);
  session.stage = 'exited';
  const evidence = [...v.evidence];
  if (v.state === 'failed') {
    evidence.push(...tail(await podLogOf(rc, sourcePod(session.kubeLast!)?.name), 15, 'main'));
    if (rc.findExitCause) evidence.push(...(await rc.findExitCause(session.profile.backend, rc.signal).catch((e: unknown) => [{ kind: 'note' as const, text: `could not look for the snapshot module's exit: ${message(e)}` }])));
  }
  book.finish('sourceExit', v.state, v.verdict, evidence);
}

export async function kubeRestoreStep(rc: RunContext): Promise<void> {
  const { session, book } = rc;
  const { k, t, container } = settings(rc);
  session.restoreRequestedAt = rc.now();
  session.tracker.resetKinds(['restore', 'resume', 'serve']);
  if (k.snapshotctl) {
    const o = session.kubeLast ?? (await observeOnce(rc));
    const target = targetPod(o);
    const pod = k.restorePod ?? target?.name;
    const checkpointId = k.checkpointId ?? target?.checkpointId;
    if (!pod || !checkpointId) {
      book.finish('restore', 'failed', `snapshotctl restore needs ${!pod ? 'kubernetes.restorePod (no restore-target pod observed)' : 'kubernetes.checkpointId (the restore pod has no nvidia.com/snapshot-checkpoint-id label)'}`);
      return;
    }
    book.add('restore', ...(await trigger(rc, snapshotctlArgs({ action: 'restore', pod, containers: [container], namespace: t.namespace, checkpointId }))));
  }
  const v = await pollKube(rc, 'the restore (nvidia.com/snapshot-restore-status)', session.profile.timeouts.restoreSeconds, judgeKubeRestore);
  summaryMetrics(rc, session.kubeLast?.agentLog, 'restore');
  if (v.state !== 'failed') session.stage = 'restored';
  book.finish('restore', v.state, v.verdict, [...book.get('restore').evidence, ...v.evidence]);
}

export async function kubeResumeStep(rc: RunContext): Promise<void> {
  const { session, book } = rc;
  const t0 = session.restoreRequestedAt ?? rc.now();
  const left = Math.max(0.001, (t0 + session.profile.timeouts.restoreSeconds * 1000 - rc.now()) / 1000);
  // Ready = the workload's own startup probe (or `cat /snapshot-control/restore-complete`) passed.
  const r = await pollKube(rc, "the restored worker's resume", left, (o) => {
    const target = targetPod(o);
    if (!target) return undefined;
    const term = target.terminated[o.container];
    if (term) throw new Error(`restored container ${target.name}/${o.container} ended (exit code ${term.exitCode ?? '?'}${term.reason ? `, ${term.reason}` : ''}) before it resumed`);
    return target.ready[o.container] ? { target } : undefined;
  });
  const log = await podLogOf(rc, r.target.name);
  let resumeLine: string | undefined;
  for (const line of (log ?? '').split('\n')) {
    const hit = session.tracker.push(line.replace(/^\d{4}-\d\d-\d\dT\S+Z /, ''), rc.now());
    if (hit?.def.kind === 'resume') resumeLine ??= line;
  }
  const restoreMs = rc.now() - t0;
  rc.metrics.restoreMs = restoreMs;
  const agentMs = rc.metrics.phaseTimingsMs?.['restore.started_to_complete'];
  const evidence: Evidence[] = [{ kind: 'timing', text: 'restore time (restore request → restored pod Ready, as polled)', valueMs: restoreMs }];
  if (agentMs !== undefined) evidence.push({ kind: 'timing', text: 'agent: restore target detected → restore complete', valueMs: agentMs });
  if (resumeLine) {
    evidence.unshift({ kind: 'log', rank: 'main', text: resumeLine });
    book.finish('resume', 'passed', `pod ${r.target.name} resumed and Ready ${formatSeconds(restoreMs / 1000)} after the restore request`, evidence);
  } else {
    book.finish('resume', 'warned', `pod ${r.target.name} is Ready ${formatSeconds(restoreMs / 1000)} after the restore request, but its log shows no "Resuming model after restore"${log === undefined ? ' (log not readable)' : ''}`, evidence);
  }
}

/** Smoke on Kubernetes: only through an explicit URL (a Service, an ingress, a port-forward) that answers. */
export async function kubeSmokePrecheck(rc: RunContext): Promise<string | undefined> {
  const url = rc.session.profile.smoke.url;
  if (url.includes('${port}')) return 'smoke.url has ${port}, which only a worker the agent started reports; give the restored pod\'s URL (a Service, an ingress or a kubectl port-forward) to send smoke requests';
  try {
    const r = await (rc.fetchImpl ?? fetch)(`${url.replace(/\/+$/, '')}/v1/models`, { signal: AbortSignal.any([rc.signal, AbortSignal.timeout(5000)]) });
    await r.body?.cancel().catch(() => undefined);
    return undefined;
  } catch (e) {
    if (rc.signal.aborted) throw new CancelledError();
    const cause = (e as { cause?: { code?: string; message?: string } }).cause;
    return `smoke.url ${url} is not reachable from here (${cause?.code ?? cause?.message ?? message(e)}); a kubectl port-forward or a Service URL makes it reachable`;
  }
}

/**
 * "Connect" outside a run (the palette's Connect) on an observe-mode profile: one pods read through
 * kubectl, described in the shape of the agent's hello so the views show it like any worker.
 */
export async function observeHello(src: KubeRunSource, now = Date.now()): Promise<HelloEvent> {
  const pods = (await src.pods()).map(parsePod);
  const names = pods.map((p) => p.name).join(', ') || 'no pod yet';
  const none = { present: false };
  return { v: 1, t: now, type: 'hello', agentVersion: 'observe', python: '-', platform: 'kubernetes (observe mode)', hostname: names, uid: -1, isRoot: false, gpus: [], cudaCheckpoint: none, criu: none };
}

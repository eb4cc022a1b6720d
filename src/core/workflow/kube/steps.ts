/**
 * The run on a kubernetes profile in observe mode (`profile.kubernetes`): the snapshot machinery on
 * the cluster starts the source, captures and restores, so each step here polls the cluster (pods,
 * conditions, events, the snapshot objects of the API generation it serves, the agent's log) until
 * the observe.ts judges decide, within the profile's timeouts, and cancellably. With `snapshotctl`
 * set, capture and restore are triggered first. Nothing here runs on the worker, so nothing needs stopping.
 */
import type { HelloEvent } from '../../protocol/agentEvents';
import { snapshotObjectName } from '../../settings/workerProfile';
import type { RunContext } from '../context';
import type { WorkerSession } from '../session';
import type { Evidence } from '../types';
import type { Verdict } from '../warmupVerdict';
import { judgeWarmup } from '../warmupVerdict';
import { CancelledError, formatSeconds, TimeoutError } from '../waiter';
import { detectGeneration, snapshotObjectKind, type GenerationInfo } from './generation';
import { judgeKubeCapture, judgeKubeRestore, judgeKubeSourceExit, observedSummary, sourcePod, summaryEvidence, summaryWords, targetPod, type KubeObservation } from './observe';
import { parseCheckpoint, parseEvents, parsePod, type PodState } from './parse';
import { parseSnapshotContent, splitSnapshotList, type PodSnapshotObject } from './snapshotObjects';
import { parseSnapshotctl, snapshotctlArgs, snapshotctlGeneration, snapshotctlMissing, SNAPSHOTCTL_GENERATION_TITLES, type SnapshotctlGeneration, type SnapshotctlRequest } from './snapshotctl';
import type { CommandResult, KubeRunSource } from './source';
import { summaryFields } from './timing';

export type { CommandResult, KubeRunSource } from './source';

/** One observation plus what the optional sources could not say (RBAC, a missing CRD …). */
export interface KubeSeen extends KubeObservation {
  at: number;
  problems: string[];
  generationInfo: GenerationInfo;
}

function settings(rc: RunContext) {
  const k = rc.session.profile.kubernetes;
  const t = rc.session.profile.transport;
  if (!k || t.kind !== 'kubernetes') throw new Error('not a kubernetes observe-mode profile');
  return { k, t, container: t.container ?? 'main', objectName: snapshotObjectName(k) };
}

function source(rc: RunContext): KubeRunSource {
  const s = rc.session.kube;
  if (!s) throw new Error('no kubectl source for this kubernetes profile (the caller must provide one)');
  return s;
}

const message = (e: unknown): string => (e instanceof Error ? e.message : String(e));

/** Per session: what this cycle's snapshotctl was asked, and what the run learnt on the way. */
interface CycleState {
  checkpoint?: { args: string[]; done?: CommandResult; promise: Promise<CommandResult> };
  restorePod?: string;
  snapctl?: SnapshotctlGeneration;
}
const cycles = new WeakMap<WorkerSession, CycleState>();
const cycle = (rc: RunContext): CycleState => {
  let c = cycles.get(rc.session);
  if (!c) cycles.set(rc.session, (c = {}));
  return c;
};

async function generationOf(rc: RunContext, problems: string[]): Promise<GenerationInfo> {
  const src = source(rc);
  if (!src.apiResources) return detectGeneration([]);
  try {
    return detectGeneration(await src.apiResources());
  } catch (e) {
    problems.push(`API discovery (kubectl api-resources --api-group=nvidia.com): ${message(e)}`);
    return detectGeneration([]);
  }
}

/** Today: the named PodSnapshot, else the newest one capturing an observed pod. */
function pickSnapshot(all: PodSnapshotObject[], name: string | undefined, pods: PodState[], previous?: string): PodSnapshotObject | undefined {
  if (name) return all.find((s) => s.name === name);
  if (previous) {
    const same = all.find((s) => s.name === previous);
    if (same) return same;
  }
  const names = new Set(pods.map((p) => p.name));
  return all.filter((s) => s.sourcePod && names.has(s.sourcePod)).sort((a, b) => (b.createdAt ?? 0) - (a.createdAt ?? 0))[0];
}

/** Reads pods, events, the snapshot objects and the agent log once. Pods and events must work; the rest may fail (said). */
export async function observeOnce(rc: RunContext): Promise<KubeSeen> {
  const src = source(rc);
  const { container, objectName } = settings(rc);
  const problems: string[] = [];
  const info = await generationOf(rc, problems);
  const g = info.generation;
  const soft = <T>(what: string, p: Promise<T> | undefined): Promise<T | undefined> =>
    p ? p.catch((e: unknown) => (problems.push(`${what}: ${message(e)}`), undefined)) : Promise.resolve(undefined);
  const legacyName = g !== 'snapshot' ? objectName : undefined;
  const [podsRaw, eventsRaw, cpRaw, listRaw, agentLog] = await Promise.all([
    src.pods(),
    src.events(),
    legacyName && src.object ? soft(`DynamoCheckpoint ${legacyName}`, src.object('dynamocheckpoint', legacyName)) : undefined,
    g !== 'dynamo' && src.snapshotList ? soft('PodSnapshots and SnapshotJobs', src.snapshotList()) : undefined,
    src.agentLog ? soft('snapshot agent logs', src.agentLog()) : undefined,
  ]);
  const pods = podsRaw.map(parsePod);
  // Events of the whole namespace: keep those about the observed pods and the snapshot objects.
  const names = new Set(pods.map((p) => p.name));
  const events = parseEvents(eventsRaw).filter((e) => !e.object || !e.object.startsWith('Pod/') || names.has(e.object.slice(4)));
  const seen: KubeSeen = { container, generation: g, generationInfo: info, pods, events, agentLog, at: rc.now(), problems, restorePod: cycle(rc).restorePod };
  if (cpRaw !== undefined) seen.checkpoint = parseCheckpoint(cpRaw);
  else if (legacyName && g === 'dynamo' && src.object && !problems.length) problems.push(`DynamoCheckpoint ${legacyName} does not exist (yet)`);
  if (listRaw !== undefined) {
    const list = splitSnapshotList(listRaw);
    const snap = pickSnapshot(list.snapshots, objectName, pods, rc.session.kubeLast?.snapshot?.name);
    if (snap) {
      seen.snapshot = snap;
      seen.jobs = list.jobs.filter((j) => j.podSnapshotName === snap.name || (snap.job !== undefined && j.name === snap.job));
      if (snap.contentName && src.object) {
        const raw = await soft(`PodSnapshotContent ${snap.contentName}`, src.object('podsnapshotcontent', snap.contentName));
        if (raw !== undefined) seen.content = parseSnapshotContent(raw);
      }
    } else if (objectName && g === 'snapshot') problems.push(`PodSnapshot ${objectName} does not exist (yet)`);
  }
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

function podEvidence(o: KubeSeen): Evidence[] {
  return o.pods.map((p) => ({
    kind: 'note',
    text: `pod ${p.name}: ${p.phase ?? '?'}${p.role !== 'other' ? `, ${p.role}` : ''}${p.restoreFrom ? ` (restore-from ${p.restoreFrom})` : ''}, ready ${JSON.stringify(p.ready)}${Object.keys(p.restoreStatus).length ? `, restore-status ${JSON.stringify(p.restoreStatus)}` : ''}`,
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

/** snapshotctl will create the source from the manifest, so no pod is needed before it runs. */
function createsSource(rc: RunContext): boolean {
  const { k } = settings(rc);
  return Boolean(k.snapshotctl && k.manifest);
}

export async function kubeConnectStep(rc: RunContext): Promise<void> {
  const { t } = settings(rc);
  // A run from connect watches a new cycle: forget the previous one's lines, times and observation.
  rc.session.resetForNewSource();
  rc.session.kubeLast = undefined;
  cycles.delete(rc.session);
  const o = await pollKube(rc, 'a pod', rc.session.profile.timeouts.connectSeconds, (x) => x);
  const where = `${t.namespace ? `namespace ${t.namespace}` : 'the default namespace'}${t.context ? `, context ${t.context}` : ''}`;
  const api = `; ${o.generationInfo.label}`;
  if (o.pods.length === 0) {
    if (createsSource(rc)) {
      rc.book.finish('connect', 'passed', `no pod ${t.pod ? `named ${t.pod}` : `matches ${t.selector}`} in ${where} yet: snapshotctl checkpoint creates the source from kubernetes.manifest${api}`);
      return;
    }
    rc.book.finish('connect', 'failed', `no pod ${t.pod ? `named ${t.pod}` : `matches ${t.selector}`} in ${where}${api}`);
    return;
  }
  rc.book.finish('connect', 'passed', `observing ${o.pods.length} pod${o.pods.length === 1 ? '' : 's'} in ${where} through kubectl${api}`, [...podEvidence(o), ...o.problems.map((text): Evidence => ({ kind: 'note', text }))]);
}

/** `snapshotctl --help` (then `checkpoint --help`, whose flag list names the flags) → its generation. */
async function detectSnapshotctl(rc: RunContext): Promise<{ generation: SnapshotctlGeneration } | { error: string }> {
  const src = source(rc);
  const c = cycle(rc);
  if (c.snapctl) return { generation: c.snapctl };
  const run = (args: string[]) => src.snapshotctl!(args, rc.signal).catch((e: unknown): CommandResult => ({ code: null, stdout: '', stderr: message(e) }));
  const top = await run(['--help']);
  if (top.code === null) return { error: top.stderr.trim() || 'no exit status' };
  let g = snapshotctlGeneration(`${top.stdout}\n${top.stderr}`);
  if (g === 'unknown') {
    const sub = await run(['checkpoint', '--help']);
    g = snapshotctlGeneration(`${sub.stdout}\n${sub.stderr}`);
  }
  c.snapctl = g;
  return { generation: g };
}

export async function kubePreflightStep(rc: RunContext): Promise<void> {
  const { k, t, objectName } = settings(rc);
  const o = rc.session.kubeLast ?? (await observeOnce(rc));
  const problems: string[] = [];
  const warnings = [...o.problems];
  const info = o.generationInfo;
  const notes: string[] = [`Kubernetes worker in observe mode on the ${info.label}: the snapshot agent captures and restores; this run watches it`];
  if (info.generation === 'unknown') warnings.push(`the cluster serves no snapshot API (kubectl api-resources --api-group=nvidia.com lists neither podsnapshots nor dynamocheckpoints): install ai-dynamo/snapshot, or check the context and RBAC`);
  const kind = snapshotObjectKind(info.generation);
  if (objectName) notes.push(`watching ${kind} ${objectName}`);
  else notes.push(info.generation === 'dynamo' ? 'no kubernetes.checkpoint: capture is judged from events and the agent\'s Checkpoint timing summary' : 'no kubernetes.snapshot: the newest PodSnapshot of an observed pod is watched');
  if (source(rc).agentWhere) {
    const where = await source(rc).agentWhere!().catch((e: unknown) => (warnings.push(`snapshot agent pods (${k.agentSelector}): ${message(e)}`), undefined));
    if (where) notes.push(`snapshot agent: ${where} (selector ${k.agentSelector}, container ${k.agentContainer})`);
  }
  if (k.snapshotctl) {
    const d = await detectSnapshotctl(rc);
    if ('error' in d) problems.push(`snapshotctl (${k.snapshotctl.join(' ')}) cannot run: ${d.error}`);
    else {
      notes.push(`snapshotctl: ${SNAPSHOTCTL_GENERATION_TITLES[d.generation]}, triggers capture${k.manifest ? '' : ' (only with kubernetes.manifest)'} and restore`);
      if (d.generation === 'unknown') warnings.push(SNAPSHOTCTL_GENERATION_TITLES.unknown);
      if (d.generation === 'checkpoint-hash' && t.context) warnings.push(`this snapshotctl takes no --kube-context: it uses the kubeconfig's current context, not ${t.context}`);
      const missing = snapshotctlMissing(d.generation, requestFor(rc, 'checkpoint', o));
      if (k.manifest && missing) problems.push(missing);
      if (info.generation === 'snapshot' && d.generation !== 'snapshot' && d.generation !== 'unknown') warnings.push(`the cluster serves the Snapshot API, but this snapshotctl is older (${SNAPSHOTCTL_GENERATION_TITLES[d.generation]})`);
    }
  } else notes.push('no kubernetes.snapshotctl: capture and restore are not triggered, only observed');
  const evidence: Evidence[] = [...problems, ...warnings, ...notes].map((text) => ({ kind: 'note', text }));
  if (problems.length) rc.book.finish('preflight', 'failed', problems.join('; '), evidence);
  else if (warnings.length) rc.book.finish('preflight', 'warned', warnings.join('; '), evidence);
  else rc.book.finish('preflight', 'passed', `ready to observe${objectName ? ` ${kind} ${objectName}` : ''} (${info.label})`, evidence);
}

function requestFor(rc: RunContext, action: 'checkpoint' | 'restore', o: KubeSeen | undefined): SnapshotctlRequest {
  const { k, t, container, objectName } = settings(rc);
  const target = o ? targetPod(o) : undefined;
  return {
    action,
    namespace: t.namespace,
    kubeContext: t.context,
    manifest: action === 'checkpoint' ? k.manifest : (k.restoreManifest ?? k.manifest),
    snapshot: objectName ?? o?.snapshot?.name,
    pod: k.restorePod ?? target?.name,
    containers: [container],
    // A checkpoint id is chosen by the caller (or generated by snapshotctl); a restore takes the target's.
    checkpointId: action === 'checkpoint' ? k.checkpointId : (k.checkpointId ?? target?.checkpointId),
  };
}

/** Starts `snapshotctl checkpoint` once per cycle (it creates the source from the manifest and waits for the capture). */
async function triggerCheckpoint(rc: RunContext): Promise<void> {
  const { k } = settings(rc);
  const c = cycle(rc);
  if (!k.snapshotctl || !k.manifest || c.checkpoint) return;
  const d = await detectSnapshotctl(rc);
  if ('error' in d) throw new Error(`snapshotctl cannot run: ${d.error}`);
  const req = requestFor(rc, 'checkpoint', rc.session.kubeLast);
  const missing = snapshotctlMissing(d.generation, req);
  if (missing) throw new Error(missing);
  const args = snapshotctlArgs(d.generation, req);
  const started = { args, promise: source(rc).snapshotctl!(args, rc.signal) } as NonNullable<CycleState['checkpoint']>;
  started.promise = started.promise.then(
    (r) => (started.done = r),
    (e: unknown) => (started.done = { code: null, stdout: '', stderr: message(e) }),
  );
  c.checkpoint = started;
}

function triggerEvidence(args: string[], r: CommandResult): Evidence[] {
  const kv = parseSnapshotctl(r.stdout);
  return [{ kind: 'note', text: `snapshotctl ${args.join(' ')} → exit ${r.code ?? '?'}${Object.keys(kv).length ? ` (${Object.entries(kv).map(([a, b]) => `${a}=${b}`).join(', ')})` : ''}` }];
}

function triggerFailure(args: string[], r: CommandResult): Error {
  return Object.assign(new Error(`snapshotctl ${args[0]} failed (exit ${r.code ?? '?'}): ${(r.stderr || r.stdout).trim().split('\n').slice(-3).join(' | ')}`), { evidence: triggerEvidence(args, r) });
}

/** The source pod is ready (its readiness probe is `cat /snapshot-control/ready-for-snapshot`) or already past it. */
function judgeReady(o: KubeSeen, rc: RunContext): { how: string } | undefined {
  const trig = cycle(rc).checkpoint;
  if (trig?.done && trig.done.code !== 0) throw triggerFailure(trig.args, trig.done);
  const src = sourcePod(o);
  const captured = o.checkpoint?.state === 'ready' || o.checkpoint?.state === 'failed' || o.snapshot?.state === 'ready' || o.snapshot?.state === 'failed';
  if (!src) return captured ? { how: `the source is already gone (${o.snapshot ? `PodSnapshot ${o.snapshot.name}` : `checkpoint`} ${o.snapshot?.state ?? o.checkpoint?.state})` } : undefined;
  if (src.ready[o.container]) return { how: `pod ${src.name} container ${o.container} Ready (readiness probe: ready-for-snapshot)` };
  if (src.terminated[o.container] || captured) return { how: `pod ${src.name} is already past ready-for-snapshot (${src.terminated[o.container] ? 'container terminated' : `${o.snapshot ? 'PodSnapshot' : 'checkpoint'} ${o.snapshot?.state ?? o.checkpoint?.state}`})` };
  return undefined;
}

export async function kubeWarmupStep(rc: RunContext): Promise<void> {
  const { session, book } = rc;
  await triggerCheckpoint(rc);
  await pollKube(rc, 'ready-for-snapshot (source pod Ready)', session.profile.timeouts.readySeconds, (o) => judgeReady(o, rc));
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
  await triggerCheckpoint(rc);
  const r = await pollKube(rc, 'ready-for-snapshot (source pod Ready)', session.profile.timeouts.readySeconds, (o) => judgeReady(o, rc));
  session.stage = 'started';
  session.startedAt ??= t0;
  const o = session.kubeLast!;
  const evidence: Evidence[] = [...podEvidence(o), ...tail(o.agentLog?.split('\n').filter((l) => /awaiting quiesce|Starting checkpoint operation/.test(l)).join('\n'), 3, 'agent')];
  rc.book.finish('ready', 'passed', r.how, evidence);
}

/** The summary's fields as run metrics: `capture.<phase>` / `restore.<phase>`, plus duration and started_to_complete. */
function summaryMetrics(rc: RunContext, o: KubeSeen | undefined, kind: 'checkpoint' | 'restore'): Record<string, number> | undefined {
  const s = o ? observedSummary(o, kind) : undefined;
  if (!s) return undefined;
  const prefix = kind === 'checkpoint' ? 'capture.' : 'restore.';
  const fields = summaryFields(s);
  rc.metrics.phaseTimingsMs = { ...rc.metrics.phaseTimingsMs, ...Object.fromEntries(Object.entries(fields).map(([key, v]) => [prefix + key, v])) };
  return fields;
}

export async function kubeCaptureStep(rc: RunContext): Promise<void> {
  const { session, book } = rc;
  const { objectName } = settings(rc);
  const t0 = rc.now();
  await triggerCheckpoint(rc);
  const trig = cycle(rc).checkpoint;
  const v = await pollKube(rc, 'the capture', session.profile.timeouts.captureSeconds, (o): Verdict | undefined => {
    if (trig?.done && trig.done.code !== 0) throw triggerFailure(trig.args, trig.done);
    const judged = judgeKubeCapture(o);
    if (judged || objectName || o.snapshot) return judged;
    // No snapshot object to watch: the agent's summary says it is done.
    const summary = observedSummary(o, 'checkpoint');
    if (summary) return { state: 'passed', verdict: `the snapshot agent logged its Checkpoint timing summary${summaryWords(summary)}`, evidence: summaryEvidence(summary) };
    return undefined;
  });
  if (trig?.done) book.add('capture', ...triggerEvidence(trig.args, trig.done));
  else if (trig) book.add('capture', { kind: 'note', text: `snapshotctl ${trig.args.join(' ')} still running (it waits for the capture itself)` });
  const fields = summaryMetrics(rc, session.kubeLast, 'checkpoint');
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
  const { k } = settings(rc);
  session.restoreRequestedAt = rc.now();
  session.tracker.resetKinds(['restore', 'resume', 'serve']);
  if (k.snapshotctl) {
    const d = await detectSnapshotctl(rc);
    if ('error' in d) throw new Error(`snapshotctl cannot run: ${d.error}`);
    const o = session.kubeLast ?? (await observeOnce(rc));
    const req = requestFor(rc, 'restore', o);
    const missing = snapshotctlMissing(d.generation, req);
    if (missing) {
      book.finish('restore', 'failed', missing);
      return;
    }
    const args = snapshotctlArgs(d.generation, req);
    const r = await source(rc).snapshotctl!(args, rc.signal);
    if (rc.signal.aborted) throw new CancelledError();
    if (r.code !== 0) throw triggerFailure(args, r);
    book.add('restore', ...triggerEvidence(args, r));
    cycle(rc).restorePod = parseSnapshotctl(r.stdout).restore_pod;
  }
  const v = await pollKube(rc, 'the restore (nvidia.com/Restored or the restore-status annotation)', session.profile.timeouts.restoreSeconds, judgeKubeRestore);
  summaryMetrics(rc, session.kubeLast, 'restore');
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
  const api = src.apiResources ? detectGeneration(await src.apiResources().catch(() => [])).label : 'kubernetes';
  const none = { present: false };
  return { v: 1, t: now, type: 'hello', agentVersion: 'observe', python: '-', platform: `kubernetes (observe mode; ${api})`, hostname: names, uid: -1, isRoot: false, gpus: [], cudaCheckpoint: none, criu: none };
}

/**
 * Kubernetes profiles: capture and restore belong to the snapshot agent, so the run observes them.
 * These judges turn one observation (pods, events, the snapshot objects, the agent log) into a
 * verdict with evidence, or `undefined` while the outcome is still open. They know both API
 * generations (generation.ts): today's PodSnapshot / PodSnapshotContent / SnapshotJob with
 * `nvidia.com/restore-from` and the `nvidia.com/Restored` condition, where the agent's dump ends the
 * source (snapshot#101); and yesterday's DynamoCheckpoint with restore-status annotations, where the
 * source had to leave by itself with status 0.
 */
import type { Evidence } from '../types';
import type { Verdict } from '../warmupVerdict';
import type { ApiGeneration } from './generation';
import { AGENT_LINES, type CheckpointState, type PodState, type SnapshotEvent } from './parse';
import { classifyRestored, describeMismatch, parseMismatches } from './restored';
import type { PodSnapshotObject, SnapshotContentObject, SnapshotJobObject } from './snapshotObjects';
import { lastSummary, type SummaryKind, type TimingSummary } from './timing';

export interface KubeObservation {
  container: string;
  /** which snapshot API the cluster serves ('unknown': judge every signal) */
  generation: ApiGeneration;
  pods: PodState[];
  events: SnapshotEvent[];
  /** yesterday: the DynamoCheckpoint named by the profile */
  checkpoint?: CheckpointState;
  /** today: the PodSnapshot named by the profile, or the one capturing an observed pod */
  snapshot?: PodSnapshotObject;
  /** today: the PodSnapshotContent it is bound to */
  content?: SnapshotContentObject;
  /** today: the SnapshotJob(s) that produce it */
  jobs?: SnapshotJobObject[];
  /** the restore pod this run asked for (snapshotctl's `restore_pod=`), when known */
  restorePod?: string;
  agentLog?: string;
}

const ms = (v: number): string => (v >= 1000 ? `${Number((v / 1000).toFixed(2))} s` : `${Math.round(v)} ms`);

function eventEvidence(events: SnapshotEvent[], reasons: RegExp): Evidence[] {
  return events.filter((e) => reasons.test(e.reason)).map((e) => ({ kind: 'log', rank: 'agent', text: `${e.type} ${e.reason}${e.object ? ` ${e.object}` : ''}: ${e.message}` }));
}

/** The summary as evidence: the total, every phase (drawn inside the step's bar), the wall time. */
export function summaryEvidence(s: TimingSummary | undefined): Evidence[] {
  if (!s) return [];
  const out: Evidence[] = [];
  if (s.durationMs !== undefined) out.push({ kind: 'timing', text: `agent ${s.kind} duration`, valueMs: s.durationMs });
  for (const p of s.phases) out.push({ kind: 'timing', text: `agent ${s.kind} phase ${p.name}`, valueMs: p.ms, phase: p.name });
  if (s.startedToCompleteMs !== undefined) out.push({ kind: 'timing', text: `agent ${s.kind}: detected → complete`, valueMs: s.startedToCompleteMs });
  return out;
}

/** "9.21 s: criu_dump 5.2 s, cuda_checkpoint 3.1 s, …" for a verdict. */
export function summaryWords(s: TimingSummary | undefined): string {
  if (!s) return '';
  const phases = s.phases.filter((p) => p.ms > 0).map((p) => `${p.name} ${ms(p.ms)}`);
  const total = s.durationMs ?? s.startedToCompleteMs;
  return total === undefined && phases.length === 0 ? '' : ` (agent: ${total !== undefined ? ms(total) : ''}${phases.length ? `${total !== undefined ? ': ' : ''}${phases.join(', ')}` : ''})`;
}

function agentLineEvidence(log: string | undefined): Evidence[] {
  if (!log) return [];
  return log.split('\n').filter((l) => AGENT_LINES.some(([re]) => re.test(l))).slice(-10).map((text) => ({ kind: 'log', rank: 'agent', text }));
}

/** Names a summary may carry that say it is about this run's objects. */
function aboutNames(o: KubeObservation, kind: SummaryKind): string[] {
  const names = kind === 'checkpoint' ? [o.content?.name, o.snapshot?.name, o.snapshot?.sourcePod, sourcePod(o)?.name] : [targetPod(o)?.name];
  return names.filter((n): n is string => Boolean(n));
}

export function observedSummary(o: KubeObservation, kind: SummaryKind): TimingSummary | undefined {
  return lastSummary(o.agentLog, kind, aboutNames(o, kind));
}

const today = (o: KubeObservation): boolean => o.generation === 'snapshot' || (o.generation === 'unknown' && o.snapshot !== undefined);

/** The pod being captured: the one the PodSnapshot names, else the one marked as source, else not a restore target. */
export function sourcePod(o: KubeObservation): PodState | undefined {
  const named = o.snapshot?.sourcePod ?? o.content?.sourcePod;
  return (named ? o.pods.find((p) => p.name === named) : undefined) ?? o.pods.find((p) => p.role === 'checkpoint-source') ?? o.pods.find((p) => p.role !== 'restore-target');
}

/**
 * The pod restored into: the one this run's snapshotctl created, else the newest annotated
 * restore-from this PodSnapshot (pods restored from it earlier may still be there), else (yesterday)
 * the one marked as restore target.
 */
export function targetPod(o: KubeObservation): PodState | undefined {
  const snap = o.snapshot?.name;
  const named = o.restorePod ? o.pods.find((p) => p.name === o.restorePod) : undefined;
  const newest = snap ? o.pods.filter((p) => p.restoreFrom === snap).sort((a, b) => (b.createdAt ?? 0) - (a.createdAt ?? 0))[0] : undefined;
  return named ?? newest ?? o.pods.find((p) => p.role === 'restore-target') ?? o.pods.find((p) => o.container in p.restoreStatus);
}

/** Capture: the snapshot object Ready (verified) or Failed, with the agent's Checkpoint timing summary. */
export function judgeKubeCapture(o: KubeObservation): Verdict | undefined {
  const summary = observedSummary(o, 'checkpoint');
  const evidence = [...agentLineEvidence(o.agentLog), ...summaryEvidence(summary), ...eventEvidence(o.events, /^Checkpoint/)];
  const failedEvent = o.events.find((e) => e.reason === 'CheckpointFailed');
  if (today(o) && (o.snapshot || o.content)) return judgeTodayCapture(o, summary, evidence, failedEvent);
  const cp = o.checkpoint;
  if (cp?.state === 'failed' || failedEvent) {
    const why = cp?.state === 'failed' ? `${cp.reason ?? 'Failed'}: ${cp.message ?? ''}` : `${failedEvent!.reason}: ${failedEvent!.message}`;
    return { state: 'failed', verdict: `checkpoint ${cp?.name ?? ''} failed (${why.trim()}); the agent SIGKILLs a CUDA-locked source after a failed dump`, evidence };
  }
  if (cp?.state === 'ready') {
    return { state: 'passed', verdict: `${cp.kind} ${cp.name} ready${cp.location ? ` at ${cp.location}` : ''}${summaryWords(summary)}`, evidence };
  }
  return undefined;
}

function judgeTodayCapture(o: KubeObservation, summary: TimingSummary | undefined, evidence: Evidence[], failedEvent: SnapshotEvent | undefined): Verdict | undefined {
  const s = o.snapshot;
  const c = o.content;
  const job = o.jobs?.find((j) => j.state === 'failed');
  evidence.unshift(...snapshotNotes(o));
  const failure = (s?.state === 'failed' && s.conditions.Failed) || (c?.state === 'failed' && c.conditions.Failed) || (job && job.conditions.Failed);
  if (failure || failedEvent) {
    const why = failure ? `${failure.reason ?? 'Failed'}: ${failure.message ?? ''}` : `${failedEvent!.reason}: ${failedEvent!.message}`;
    return { state: 'failed', verdict: `PodSnapshot ${s?.name ?? c?.snapshot?.name ?? '?'} failed (${why.trim()}); a failed dump leaves nothing to restore and the agent kills the CUDA-locked source`, evidence };
  }
  if (s?.state === 'ready' || (!s && c?.state === 'ready')) {
    const where = c ? `, bound to PodSnapshotContent ${c.name}${c.node ? ` on node ${c.node}` : ''}` : s?.contentName ? `, bound to PodSnapshotContent ${s.contentName}` : '';
    return { state: 'passed', verdict: `PodSnapshot ${s?.name ?? c?.snapshot?.name} Ready${where}${summaryWords(summary)}`, evidence };
  }
  return undefined;
}

function snapshotNotes(o: KubeObservation): Evidence[] {
  const out: Evidence[] = [];
  const cond = (c: Record<string, { status: string; reason?: string }>) => Object.entries(c).map(([t, v]) => `${t}=${v.status}${v.reason ? ` (${v.reason})` : ''}`).join(', ');
  if (o.snapshot) out.push({ kind: 'note', text: `PodSnapshot ${o.snapshot.name}: ${cond(o.snapshot.conditions) || 'no conditions yet'}${o.snapshot.sourcePod ? `, source pod ${o.snapshot.sourcePod}` : ''}` });
  if (o.content) out.push({ kind: 'note', text: `PodSnapshotContent ${o.content.name}: ${cond(o.content.conditions) || 'no conditions yet'}${o.content.node ? `, node ${o.content.node}` : ''}${o.content.capturedOn.length ? `; captured on ${o.content.capturedOn.join('; ')}` : ''}` });
  for (const j of o.jobs ?? []) out.push({ kind: 'note', text: `SnapshotJob ${j.name}: ${cond(j.conditions) || 'no conditions yet'}` });
  return out;
}

/** Today: the capture is done (the PodSnapshot, its content or its SnapshotJob says so). */
function captureCompleted(o: KubeObservation): boolean {
  return o.snapshot?.state === 'ready' || o.content?.state === 'ready' || (o.jobs ?? []).some((j) => j.state === 'captured' || j.state === 'completed');
}

function exitWords(t: { exitCode?: number; signal?: number; reason?: string }): string {
  const sig = t.signal ?? (t.exitCode !== undefined && t.exitCode > 128 ? t.exitCode - 128 : undefined);
  const name = sig === 9 ? 'SIGKILL' : sig === 11 ? 'SIGSEGV' : sig === 6 ? 'SIGABRT' : sig === 15 ? 'SIGTERM' : sig !== undefined ? `signal ${sig}` : '';
  return `exit code ${t.exitCode ?? '?'}${name ? ` (${name})` : ''}${t.reason ? `, ${t.reason}` : ''}`;
}

/**
 * Source exit. Today the agent's dump terminates the source (snapshot#101): after a completed
 * capture a killed source, or one whose pod the SnapshotJob already removed, is the expected end.
 * Yesterday the released source had to exit with status 0 (139 = SIGSEGV in teardown).
 */
export function judgeKubeSourceExit(o: KubeObservation): Verdict | undefined {
  const source = sourcePod(o);
  const t = source?.terminated[o.container];
  if (today(o)) {
    // With no snapshot object to read (none named, none found), the agent's summary says the capture is done.
    const done = captureCompleted(o) || (!o.snapshot && !o.content && observedSummary(o, 'checkpoint') !== undefined);
    const name = o.snapshot?.name ?? o.content?.snapshot?.name;
    const ready = name ? `PodSnapshot ${name} became Ready` : 'the agent logged its Checkpoint timing summary';
    if (!source && done) {
      return { state: 'passed', verdict: `the source pod is gone after ${ready} (its SnapshotJob removes it): the expected end of a capture on the Snapshot API`, evidence: snapshotNotes(o) };
    }
    if (!source || !t) return undefined;
    const evidence: Evidence[] = [{ kind: 'exit', text: `pod ${source.name} container ${o.container}: ${exitWords(t)}` }, ...snapshotNotes(o)];
    if (done) {
      return { state: 'passed', verdict: `source container ${o.container} ended (${exitWords(t)}) after ${ready}: the agent's dump ends the source (snapshot#101), the expected end`, evidence };
    }
    if (o.snapshot?.state === 'failed' || o.content?.state === 'failed') {
      return { state: 'failed', verdict: `source container ${o.container} was ended (${exitWords(t)}) after the capture of PodSnapshot ${name} failed`, evidence };
    }
    return { state: 'failed', verdict: `source container ${o.container} ended (${exitWords(t)}) before ${name ? `PodSnapshot ${name} became Ready` : 'the capture completed'}: the workload left before the agent captured it`, evidence };
  }
  if (!source || !t) return undefined;
  const evidence: Evidence[] = [{ kind: 'exit', text: `pod ${source.name} container ${o.container}: ${t.reason ?? 'terminated'}, exit code ${t.exitCode ?? '?'}${t.signal ? `, signal ${t.signal}` : ''}` }];
  if (t.exitCode === 0 && !t.signal) return { state: 'passed', verdict: `source container ${o.container} exited with status 0 after the checkpoint`, evidence };
  const segv = t.exitCode === 139 || t.signal === 11;
  return {
    state: 'failed',
    verdict: `source container ${o.container} ended with exit code ${t.exitCode ?? '?'}${segv ? ' (SIGSEGV): teardown ran after the image was taken; exit with os._exit(0)' : ''}`,
    evidence,
  };
}

/** Restore: today the Restored condition (every reason has a verdict), yesterday the restore-status annotation. */
export function judgeKubeRestore(o: KubeObservation): Verdict | undefined {
  const target = targetPod(o);
  const summary = observedSummary(o, 'restore');
  const evidence = [...agentLineEvidence(o.agentLog), ...summaryEvidence(summary), ...eventEvidence(o.events, /^Restore/)];
  if (!target) return undefined;
  const workerFailed = o.events.find((e) => e.reason === 'RestoreWorkerFailed' && (!e.object || e.object === `Pod/${target.name}`));
  if (target.restoreFrom !== undefined || (today(o) && target.restored)) return judgeTodayRestore(o, target, summary, evidence, workerFailed);
  const status = target.restoreStatus[o.container];
  evidence.unshift({ kind: 'note', text: `pod ${target.name}: nvidia.com/snapshot-restore-status.${o.container}=${status ?? '(not set)'}${target.restored ? `, condition Restored=${target.restored.status} (${target.restored.reason ?? ''})` : ''}` });
  const failedEvent = o.events.find((e) => /^Restore(Failed|WorkerFailed|Incompatible)$/.test(e.reason));
  if (status === 'failed' || target.restored?.reason === 'RestoreFailed' || failedEvent) {
    return { state: 'failed', verdict: `restore of ${target.name}/${o.container} failed${failedEvent ? `: ${failedEvent.message}` : target.restored?.message ? `: ${target.restored.message}` : ''}`, evidence };
  }
  if (status === 'completed' || (target.restored?.status === 'True' && target.restored.reason !== 'RestoreInProgress')) {
    const total = summary?.startedToCompleteMs ?? summary?.durationMs;
    return { state: 'passed', verdict: `restore of ${target.name}/${o.container} completed${total !== undefined ? ` (agent: ${Math.round(total)} ms from restore target detected)` : ''}`, evidence };
  }
  return undefined;
}

function judgeTodayRestore(o: KubeObservation, target: PodState, summary: TimingSummary | undefined, evidence: Evidence[], workerFailed: SnapshotEvent | undefined): Verdict | undefined {
  const r = target.restored;
  const meaning = classifyRestored(r);
  const from = target.restoreFrom ?? o.snapshot?.name ?? '?';
  evidence.unshift({ kind: 'note', text: `pod ${target.name}: nvidia.com/restore-from=${from}${target.containerMap.length ? `, restore-container-map ${target.containerMap.map((m) => `${m.source}=${m.destination}`).join(',')}` : ''}; nvidia.com/Restored=${r ? `${r.status} (${r.reason ?? 'no reason'})${r.message ? `: ${r.message}` : ''}` : '(not set yet)'} — ${meaning.says}` });
  const what = `restore of pod ${target.name} from PodSnapshot ${from}`;
  const eventFor = (reason: string) => o.events.filter((e) => e.reason === reason && (!e.object || e.object === `Pod/${target.name}`)).at(-1);
  switch (meaning.verdict) {
    case 'succeeded':
      return { state: 'passed', verdict: `${what} succeeded (nvidia.com/Restored=True${r?.reason ? `, ${r.reason}` : ''})${summaryWords(summary)}`, evidence };
    case 'failed':
      return { state: 'failed', verdict: `${what} failed (${r?.reason}): ${eventFor('RestoreFailed')?.message || r?.message || 'no message'}; a failed restore is terminal: create a new restore pod`, evidence };
    case 'partial':
      return { state: 'failed', verdict: `${what} only partly succeeded (RestorePartiallySucceeded): ${r?.message || eventFor('RestorePartiallySucceeded')?.message || 'no message'}; a new restore pod is needed`, evidence };
    case 'incompatible': {
      const text = eventFor(r?.reason ?? 'RestoreIncompatible')?.message || r?.message;
      const facts = parseMismatches(text);
      const named = facts.length ? facts.map(describeMismatch).join('; ') : text || 'no differing fact was reported';
      const replacement = r?.reason === 'RestoreReplenishmentIncompatible' ? 'a replacement container cannot be restored: ' : '';
      return {
        state: 'failed',
        verdict: `${what} was refused before CRIU (${r?.reason}): ${replacement}${named}. Restore onto a node and pod that match, or set nvidia.com/snapshot-skip-compat-check: "true" on the pod to try anyway`,
        evidence,
      };
    }
    default:
      if (workerFailed) return { state: 'failed', verdict: `${what} failed in the agent's restore worker: ${workerFailed.message}`, evidence };
      return undefined;
  }
}

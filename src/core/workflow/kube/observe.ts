/**
 * Kubernetes profiles: capture and restore belong to Dynamo's snapshot agent, so the run observes
 * them. These judges turn one observation (pods, events, checkpoint object, agent log) into a verdict
 * with evidence, or `undefined` while the outcome is still open; `watchKube` polls a `KubeSource`
 * (kubectl through the transport) until they decide or time runs out. `snapshotctlArgs` builds the
 * trigger where snapshotctl is installed (restore returns after submitting; the watch does the rest).
 */
import type { Evidence } from '../types';
import type { Verdict } from '../warmupVerdict';
import { AGENT_LINES, type CheckpointState, type PodSnapshotState, type SnapshotEvent, parseTimingSummaries, type TimingSummary } from './parse';

export interface KubeObservation {
  container: string;
  pods: PodSnapshotState[];
  events: SnapshotEvent[];
  checkpoint?: CheckpointState;
  agentLog?: string;
}

function eventEvidence(events: SnapshotEvent[], reasons: RegExp): Evidence[] {
  return events.filter((e) => reasons.test(e.reason)).map((e) => ({ kind: 'log', rank: 'agent', text: `${e.type} ${e.reason}${e.object ? ` ${e.object}` : ''}: ${e.message}` }));
}

function summaryEvidence(s: TimingSummary | undefined): Evidence[] {
  if (!s) return [];
  return Object.entries(s.fieldsMs).map(([k, v]) => ({ kind: 'timing', text: `${s.kind} ${k}`, valueMs: v }));
}

function agentLineEvidence(log: string | undefined): Evidence[] {
  if (!log) return [];
  return log.split('\n').filter((l) => AGENT_LINES.some(([re]) => re.test(l))).slice(-10).map((text) => ({ kind: 'log', rank: 'agent', text }));
}

function lastSummary(log: string | undefined, kind: TimingSummary['kind']): TimingSummary | undefined {
  return log ? parseTimingSummaries(log).filter((s) => s.kind === kind).at(-1) : undefined;
}

/** Capture: the checkpoint object Ready (verified) or Failed, with the agent's Checkpoint timing summary. */
export function judgeKubeCapture(o: KubeObservation): Verdict | undefined {
  const summary = lastSummary(o.agentLog, 'checkpoint');
  const evidence = [...agentLineEvidence(o.agentLog), ...summaryEvidence(summary), ...eventEvidence(o.events, /^Checkpoint/)];
  const cp = o.checkpoint;
  const failedEvent = o.events.find((e) => e.reason === 'CheckpointFailed');
  if (cp?.state === 'failed' || failedEvent) {
    const why = cp?.state === 'failed' ? `${cp.reason ?? 'Failed'}: ${cp.message ?? ''}` : `${failedEvent!.reason}: ${failedEvent!.message}`;
    return { state: 'failed', verdict: `checkpoint ${cp?.name ?? ''} failed (${why.trim()}); the agent SIGKILLs a CUDA-locked source after a failed dump`, evidence };
  }
  if (cp?.state === 'ready') {
    const total = summary?.fieldsMs.duration;
    return { state: 'passed', verdict: `checkpoint ${cp.name} ready${cp.location ? ` at ${cp.location}` : ''}${total !== undefined ? ` (agent: ${Math.round(total)} ms)` : ''}`, evidence };
  }
  return undefined;
}

/** Source exit: the source pod's container must end with status 0 after snapshot-complete. */
export function judgeKubeSourceExit(o: KubeObservation): Verdict | undefined {
  const source = o.pods.find((p) => p.role === 'checkpoint-source') ?? o.pods[0];
  const t = source?.terminated[o.container];
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

/** Restore: the restore-status annotation (or the newer Restored condition), events, Restore timing summary. */
export function judgeKubeRestore(o: KubeObservation): Verdict | undefined {
  const target = o.pods.find((p) => p.role === 'restore-target') ?? o.pods.find((p) => o.container in p.restoreStatus) ?? o.pods[0];
  const summary = lastSummary(o.agentLog, 'restore');
  const evidence = [...agentLineEvidence(o.agentLog), ...summaryEvidence(summary), ...eventEvidence(o.events, /^Restore/)];
  if (!target) return undefined;
  const status = target.restoreStatus[o.container];
  evidence.unshift({ kind: 'note', text: `pod ${target.name}: nvidia.com/snapshot-restore-status.${o.container}=${status ?? '(not set)'}${target.restored ? `, condition Restored=${target.restored.status} (${target.restored.reason ?? ''})` : ''}` });
  const failedEvent = o.events.find((e) => /^Restore(Failed|WorkerFailed|Incompatible)$/.test(e.reason));
  if (status === 'failed' || target.restored?.reason === 'RestoreFailed' || failedEvent) {
    return { state: 'failed', verdict: `restore of ${target.name}/${o.container} failed${failedEvent ? `: ${failedEvent.message}` : target.restored?.message ? `: ${target.restored.message}` : ''}`, evidence };
  }
  if (status === 'completed' || (target.restored?.status === 'True' && target.restored.reason !== 'RestoreInProgress')) {
    const total = summary?.fieldsMs.started_to_complete ?? summary?.fieldsMs.duration;
    return { state: 'passed', verdict: `restore of ${target.name}/${o.container} completed${total !== undefined ? ` (agent: ${Math.round(total)} ms from restore target detected)` : ''}`, evidence };
  }
  return undefined;
}

export interface SnapshotctlRequest {
  action: 'checkpoint' | 'restore';
  namespace?: string;
  manifest?: string;
  pod?: string;
  containers: string[];
  checkpointId?: string;
}

/** Argv for the current snapshotctl (`ai-dynamo/snapshot` operator/cmd/snapshotctl, §9). */
export function snapshotctlArgs(r: SnapshotctlRequest): string[] {
  const a: string[] = [r.action];
  if (r.manifest) a.push('--manifest', r.manifest);
  else if (r.pod && r.action === 'restore') a.push('--pod', r.pod);
  if (r.action === 'checkpoint') a.push('--container', r.containers[0] ?? 'main');
  else a.push('--containers', r.containers.join(','));
  if (r.namespace) a.push('--namespace', r.namespace);
  if (r.checkpointId) a.push('--checkpoint-id', r.checkpointId);
  return a;
}

/** Raw kubectl access, provided by the kubernetes transport (no parsing there, no kubectl here). */
export interface KubeSource {
  pods(): Promise<unknown[]>;
  events(): Promise<unknown>;
  checkpoint?(): Promise<unknown | undefined>;
  agentLog?(): Promise<string>;
}

/**
 * Polls until `judge` decides, `seconds` pass, or `signal` aborts. Returns the verdict, or a failed
 * one naming what was last seen when time runs out.
 */
export async function watchKube(
  source: KubeSource,
  container: string,
  judge: (o: KubeObservation) => Verdict | undefined,
  parse: { pod: (j: unknown) => PodSnapshotState; events: (j: unknown) => SnapshotEvent[]; checkpoint: (j: unknown) => CheckpointState },
  seconds: number,
  signal: AbortSignal,
  intervalMs = 2000,
): Promise<Verdict> {
  const end = Date.now() + seconds * 1000;
  let last: KubeObservation | undefined;
  while (!signal.aborted) {
    const cp = source.checkpoint ? await source.checkpoint() : undefined;
    last = {
      container,
      pods: (await source.pods()).map(parse.pod),
      events: parse.events(await source.events()),
      checkpoint: cp === undefined ? undefined : parse.checkpoint(cp),
      agentLog: source.agentLog ? await source.agentLog() : undefined,
    };
    const v = judge(last);
    if (v) return v;
    if (Date.now() >= end) break;
    await new Promise<void>((r) => {
      const t = setTimeout(r, intervalMs);
      signal.addEventListener('abort', () => {
        clearTimeout(t);
        r();
      }, { once: true });
    });
  }
  const seen = last ? last.pods.map((p) => `${p.name}: ${JSON.stringify(p.restoreStatus)} ready=${JSON.stringify(p.ready)}`).join('; ') : 'nothing';
  return { state: 'failed', verdict: signal.aborted ? 'cancelled' : `no decision within ${seconds} s (last seen: ${seen})`, evidence: [] };
}

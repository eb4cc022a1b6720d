/**
 * connect: reach the worker and run the agent's hello (GPUs, driver, cuda-checkpoint, CRIU,
 * privileges). preflight: decide from the hello and the profile whether capture can work at all,
 * before minutes go into loading a model.
 */
import type { HelloEvent } from '../../protocol/agentEvents';
import type { WorkerProfile } from '../../settings/workerProfile';
import type { RunContext } from '../context';
import type { Evidence } from '../types';
import type { Verdict } from '../warmupVerdict';
import { withDeadline } from '../waiter';

export async function connectStep(rc: RunContext): Promise<void> {
  const { session, signal } = rc;
  const seconds = session.profile.timeouts.connectSeconds;
  const hello = await withDeadline(`the agent's hello`, seconds, signal, (s) => session.connection.hello(s));
  session.hello = hello;
  rc.book.finish('connect', 'passed', `connected to ${hello.hostname} (${hello.platform}, Python ${hello.python}, agent ${hello.agentVersion})`, helloEvidence(hello));
}

function tool(name: string, t: HelloEvent['criu']): string {
  if (!t.present) return `${name}: not found`;
  const check = t.check ? ` — check ${t.check.ok ? 'ok' : `failed: ${t.check.message}`}` : '';
  return `${name}: ${t.path ?? 'present'}${t.version ? ` ${t.version}` : ''}${check}`;
}

export function helloEvidence(h: HelloEvent): Evidence[] {
  const gpus = h.gpus.length ? h.gpus.map((g) => `GPU ${g.index}: ${g.name}${g.memoryTotalMiB ? ` (${g.memoryTotalMiB} MiB)` : ''}`).join('; ') : 'no GPU visible';
  return [
    { kind: 'note', text: `host ${h.hostname}, uid ${h.uid}${h.isRoot ? ' (root)' : ''}` },
    { kind: 'note', text: `${gpus}${h.driverVersion ? `, driver ${h.driverVersion}` : ''}` },
    { kind: 'note', text: tool('cuda-checkpoint', h.cudaCheckpoint) + (h.cudaDriverCheckpointApi ? ' (driver checkpoint API available)' : '') },
    { kind: 'note', text: tool('criu', h.criu) },
  ];
}

/** Dynamo's snapshot docs (docs/kubernetes/snapshot.md): driver >= 580, >= 590 to test multi-GPU. */
export const DYNAMO_MIN_DRIVER = 580;
const MULTI_GPU_MIN_DRIVER = 590;

function driverMajor(v: string | undefined | null): number | undefined {
  const m = /^(\d+)\./.exec(v ?? '');
  return m ? Number(m[1]) : undefined;
}

/** Pure: what the hello means for this profile's capture mode. */
export function judgePreflight(profile: WorkerProfile, h: HelloEvent): Verdict {
  const problems: string[] = [];
  const warnings: string[] = [];
  const notes: string[] = [];
  const t = profile.timeouts;
  for (const [k, v] of Object.entries(t)) {
    if (!(typeof v === 'number' && Number.isFinite(v) && v > 0)) problems.push(`timeouts.${k} must be a finite number of seconds greater than 0 (got ${String(v)})`);
  }
  if (profile.captureMode === 'criu') {
    if (!h.criu.present) problems.push('captureMode "criu" needs CRIU on the worker, and none was found');
    else if (h.criu.check && !h.criu.check.ok) problems.push(`criu check failed: ${h.criu.check.message}`);
    if (!h.isRoot) problems.push('CRIU dump and restore need root on the worker');
    if (h.gpus.length > 0 && !h.cudaCheckpoint.present && !h.cudaDriverCheckpointApi) {
      problems.push('GPUs are visible but neither cuda-checkpoint nor the driver checkpoint API (r570+) is available');
    }
    const driver = driverMajor(h.driverVersion);
    if (h.gpus.length > 0 && driver !== undefined && driver < DYNAMO_MIN_DRIVER) {
      warnings.push(`NVIDIA driver ${h.driverVersion} is older than the ${DYNAMO_MIN_DRIVER} Dynamo Snapshot asks for (the checkpoint API exists from 570, but Dynamo supports and tests ${DYNAMO_MIN_DRIVER}+)`);
    } else if (h.gpus.length > 1 && driver !== undefined && driver < MULTI_GPU_MIN_DRIVER) {
      notes.push(`driver ${h.driverVersion}: Dynamo asks for ${MULTI_GPU_MIN_DRIVER}+ to checkpoint multi-GPU workers (cuda-checkpoint --launch-job needs 610+)`);
    }
  }
  // Notes, not warnings: a CPU engine (the stand-in) is a valid worker, and a GPU engine that cannot
  // load fails its own start step with the engine's message, which says more than a guess here.
  if (h.gpus.length === 0) notes.push(`no GPU is visible on the worker: only a CPU engine (such as the stand-in) can run there`);
  if (profile.transport.kind === 'kubernetes') notes.push('Kubernetes worker: capture and restore belong to the snapshot agent; this run observes them');
  const evidence: Evidence[] = [...problems, ...warnings, ...notes].map((text) => ({ kind: 'note', text }));
  if (problems.length) return { state: 'failed', verdict: problems.join('; '), evidence };
  if (warnings.length) return { state: 'warned', verdict: warnings.join('; '), evidence };
  return { state: 'passed', verdict: `ready for ${profile.captureMode} capture`, evidence };
}

export async function preflightStep(rc: RunContext): Promise<void> {
  const { session } = rc;
  if (!session.hello) session.hello = await withDeadline(`the agent's hello`, session.profile.timeouts.connectSeconds, rc.signal, (s) => session.connection.hello(s));
  const v = judgePreflight(session.profile, session.hello);
  rc.book.finish('preflight', v.state, v.verdict, v.evidence);
}

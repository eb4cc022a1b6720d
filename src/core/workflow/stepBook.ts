/**
 * The step records of one run and their transitions. Every change is emitted as a `step` RunEvent
 * carrying a copy of the record, so subscribers never see a record change under them.
 */
import { STEP_NAMES, isFinal, type Evidence, type RunEvent, type StepName, type StepRecord, type StepState } from './types';

export class StepBook {
  private readonly records = new Map<StepName, StepRecord>();

  constructor(
    private readonly runId: string,
    private readonly emit: (e: RunEvent) => void,
    private readonly now: () => number = Date.now,
  ) {
    for (const name of STEP_NAMES) this.records.set(name, { name, state: 'pending', evidence: [] });
  }

  get(name: StepName): StepRecord {
    return this.records.get(name)!;
  }

  list(): StepRecord[] {
    return STEP_NAMES.map((n) => copy(this.records.get(n)!));
  }

  /** The step currently running, if any (the status bar and progress name it). */
  current(): StepName | undefined {
    return STEP_NAMES.find((n) => this.records.get(n)!.state === 'running');
  }

  start(name: StepName): void {
    const r = this.get(name);
    if (isFinal(r.state)) return;
    r.state = 'running';
    r.startedAt = this.now();
    this.fire(r);
  }

  /** Adds evidence while a step runs (a marker line, a phase timing). */
  add(name: StepName, ...evidence: Evidence[]): void {
    const r = this.get(name);
    r.evidence.push(...evidence);
    this.fire(r);
  }

  finish(name: StepName, state: Exclude<StepState, 'pending' | 'running'>, verdict: string, evidence: Evidence[] = []): void {
    const r = this.get(name);
    if (isFinal(r.state)) return;
    r.startedAt ??= this.now();
    r.endedAt = this.now();
    r.state = state;
    r.verdict = verdict;
    r.evidence.push(...evidence);
    this.fire(r);
  }

  /** Marks every step that has not finished: the running one gets `state`, pending ones `skipped`. */
  closeRemaining(state: 'cancelled' | 'failed', verdict: string, skippedVerdict: string): void {
    for (const name of STEP_NAMES) {
      const r = this.get(name);
      if (r.state === 'running') this.finish(name, state, verdict);
      else if (r.state === 'pending') this.finish(name, 'skipped', skippedVerdict);
    }
  }

  private fire(r: StepRecord): void {
    this.emit({ type: 'step', runId: this.runId, step: copy(r) });
  }
}

function copy(r: StepRecord): StepRecord {
  return { ...r, evidence: r.evidence.map((e) => ({ ...e, ...(e.location ? { location: { ...e.location } } : {}) })) };
}

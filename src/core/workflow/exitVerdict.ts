/**
 * The source-exit verdict. After `snapshot-complete` the source must leave without teardown
 * (`os._exit(0)`); a signal or a non-zero status means teardown ran after the image was taken —
 * typically `raise SystemExit(0)` unwinding into CUDA / EngineCore teardown (dynamo-snapshot §12 #1).
 */
import { constants } from 'node:os';
import type { ProcessExitEvent } from '../protocol/agentEvents';
import { parseLogLine } from './logLine';
import type { Evidence } from './types';
import type { Verdict } from './warmupVerdict';

// First name per number wins: SIGABRT before its alias SIGIOT, SIGCHLD before SIGCLD.
const BY_NUMBER = new Map<number, string>();
for (const [name, n] of Object.entries(constants.signals)) if (!BY_NUMBER.has(n)) BY_NUMBER.set(n, name);

/** `SIGSEGV` for "SIGSEGV", "11", "-11" or exit status 139 (128 + 11, as a shell reports it); undefined otherwise. */
export function signalName(exit: Pick<ProcessExitEvent, 'code' | 'signal'>): string | undefined {
  if (exit.signal) {
    const n = Number(exit.signal);
    if (Number.isInteger(n)) return BY_NUMBER.get(Math.abs(n)) ?? `signal ${Math.abs(n)}`;
    return exit.signal.startsWith('SIG') ? exit.signal : `SIG${exit.signal}`;
  }
  if (exit.code !== null && exit.code > 128 && exit.code < 160) {
    const name = BY_NUMBER.get(exit.code - 128);
    if (name === 'SIGSEGV' || name === 'SIGABRT' || name === 'SIGBUS' || name === 'SIGKILL') return name;
  }
  return undefined;
}

export function describeExit(exit: Pick<ProcessExitEvent, 'code' | 'signal'>): string {
  const sig = signalName(exit);
  if (sig) return `killed by ${sig}${exit.code !== null && exit.code > 128 ? ` (status ${exit.code})` : ''}`;
  return `exited with status ${exit.code ?? 'unknown'}`;
}

export function judgeSourceExit(exit: ProcessExitEvent, tail: readonly string[], sinceCaptureMs?: number, killedByCapture = false): Verdict {
  const evidence: Evidence[] = [{ kind: 'exit', text: `pid ${exit.pid} ${describeExit(exit)}` }];
  if (killedByCapture) {
    // Snapshot #101: the dump terminates the source; a killed source after a completed capture is success.
    if (signalName(exit) === 'SIGKILL' || (exit.code === 0 && !exit.signal)) {
      return { state: 'passed', verdict: `source ${describeExit(exit)} by the capture, as the snapshot agent after Snapshot #101 does (no snapshot-complete, so its own exit path was not exercised)`, evidence };
    }
    for (const line of tail) evidence.push({ kind: 'log', rank: parseLogLine(line).rank, text: line });
    return { state: 'failed', verdict: `source ${describeExit(exit)} while the capture ended it: expected SIGKILL from the dump`, evidence };
  }
  const after = sinceCaptureMs !== undefined ? ` ${Math.round(sinceCaptureMs)} ms after snapshot-complete` : '';
  if (sinceCaptureMs !== undefined) evidence.push({ kind: 'timing', text: 'snapshot-complete to exit', valueMs: sinceCaptureMs });
  if (exit.code === 0 && !exit.signal) {
    return { state: 'passed', verdict: `source exited with status 0${after}, without teardown`, evidence };
  }
  for (const line of tail) evidence.push({ kind: 'log', rank: parseLogLine(line).rank, text: line });
  const sig = signalName(exit);
  const why = sig
    ? `teardown ran after the image was taken (typically raise SystemExit(0) unwinding into CUDA/EngineCore teardown; exit with os._exit(0) instead, dynamo#12184)`
    : `the source must exit with status 0 right after snapshot-complete (os._exit(0))`;
  return { state: 'failed', verdict: `source ${describeExit(exit)}${after}: ${why}`, evidence };
}

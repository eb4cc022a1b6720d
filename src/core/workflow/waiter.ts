/**
 * Waiting for a condition over the worker's event stream, with a deadline and cancellation. The
 * session calls `notify()` after every event it applies; each waiter re-checks its predicate then, so
 * a marker reaches its waiter in the same tick it arrives (this is what keeps the ready-to-release
 * reaction in the low milliseconds).
 */

export class TimeoutError extends Error {
  constructor(readonly what: string, readonly seconds: number) {
    super(`${what} did not happen within ${formatSeconds(seconds)}`);
  }
}

export class CancelledError extends Error {
  constructor(message = 'cancelled') {
    super(message);
  }
}

export function formatSeconds(s: number): string {
  return s >= 1 ? `${Number(s.toFixed(1))} s` : `${Math.round(s * 1000)} ms`;
}

interface Waiter {
  check(): boolean;
}

export class Conditions {
  private readonly waiters = new Set<Waiter>();

  /** Re-checks every pending waiter. */
  notify(): void {
    for (const w of [...this.waiters]) w.check();
  }

  /**
   * Resolves with the predicate's first non-undefined value; rejects with TimeoutError after
   * `seconds`, or CancelledError when `signal` aborts. `budget`: the configured timeout the message
   * names when `seconds` is only what is left of it.
   */
  waitFor<T>(what: string, predicate: () => T | undefined, seconds: number, signal: AbortSignal, budget = seconds): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const initial = predicate();
      if (initial !== undefined) return resolve(initial);
      if (signal.aborted) return reject(new CancelledError());
      const done = (): void => {
        clearTimeout(timer);
        signal.removeEventListener('abort', onAbort);
        this.waiters.delete(waiter);
      };
      const waiter: Waiter = {
        check: () => {
          let v: T | undefined;
          try {
            v = predicate();
          } catch (e) {
            done();
            reject(e instanceof Error ? e : new Error(String(e)));
            return true;
          }
          if (v === undefined) return false;
          done();
          resolve(v);
          return true;
        },
      };
      const onAbort = (): void => {
        done();
        reject(new CancelledError());
      };
      const timer = setTimeout(() => {
        done();
        reject(new TimeoutError(what, budget));
      }, Math.max(0, seconds * 1000));
      signal.addEventListener('abort', onAbort, { once: true });
      this.waiters.add(waiter);
    });
  }
}

/** Runs `fn` under a signal that also aborts after `seconds`; a timeout becomes TimeoutError, a cancel CancelledError. */
export async function withDeadline<T>(what: string, seconds: number, signal: AbortSignal, fn: (s: AbortSignal) => Promise<T>): Promise<T> {
  const ctl = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    ctl.abort(new TimeoutError(what, seconds));
  }, seconds * 1000);
  const onAbort = (): void => ctl.abort(new CancelledError());
  if (signal.aborted) onAbort();
  else signal.addEventListener('abort', onAbort, { once: true });
  try {
    // Race so that a connection method that ignores its signal still cannot hold the run past the deadline.
    return await Promise.race([
      fn(ctl.signal),
      new Promise<never>((_, reject) => ctl.signal.addEventListener('abort', () => reject(ctl.signal.reason as Error), { once: true })),
    ]);
  } catch (e) {
    if (timedOut) throw new TimeoutError(what, seconds);
    if (signal.aborted) throw new CancelledError();
    throw e;
  } finally {
    clearTimeout(timer);
    signal.removeEventListener('abort', onAbort);
  }
}

/**
 * Coalesces refresh requests: however many arrive, `fire` runs at most once per `intervalMs`, and
 * not at all while paused (a hidden tree view). A request made while paused is remembered and runs
 * when the view shows again. Timers are injectable so the behaviour is unit-tested without waiting.
 */
export interface Clock {
  now(): number;
  setTimeout(f: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export const realClock: Clock = {
  now: () => Date.now(),
  setTimeout: (f, ms) => setTimeout(f, ms),
  clearTimeout: (h) => clearTimeout(h as ReturnType<typeof setTimeout>),
};

export class Coalescer {
  private timer: unknown;
  private last = -Infinity;
  private pending = false;
  private paused: boolean;
  private disposed = false;
  /** how many times `fire` ran (for tests and the flood benchmark) */
  fired = 0;

  constructor(
    private readonly fire: () => void,
    readonly intervalMs: number,
    options: { paused?: boolean; clock?: Clock } = {},
  ) {
    this.paused = options.paused ?? false;
    this.clock = options.clock ?? realClock;
  }

  private readonly clock: Clock;

  request(): void {
    if (this.disposed) return;
    this.pending = true;
    this.schedule();
  }

  setPaused(paused: boolean): void {
    this.paused = paused;
    if (paused) this.cancelTimer();
    else this.schedule();
  }

  dispose(): void {
    this.disposed = true;
    this.cancelTimer();
  }

  private schedule(): void {
    if (this.paused || this.timer !== undefined || !this.pending || this.disposed) return;
    const wait = Math.max(0, this.last + this.intervalMs - this.clock.now());
    this.timer = this.clock.setTimeout(() => this.run(), wait);
  }

  private run(): void {
    this.timer = undefined;
    if (this.paused || !this.pending || this.disposed) return;
    this.pending = false;
    this.last = this.clock.now();
    this.fired++;
    this.fire();
  }

  private cancelTimer(): void {
    if (this.timer !== undefined) this.clock.clearTimeout(this.timer);
    this.timer = undefined;
  }
}

/**
 * Where the views spend the extension host's time: count, total and worst duration per kind of
 * work (applying events, rendering documents, drawing trees, posting to the panel). The flood
 * benchmark reports them next to the largest stall, so a regression names its cause.
 */
export interface Cost {
  count: number;
  totalMs: number;
  maxMs: number;
}

export class Costs {
  private readonly map = new Map<string, Cost>();

  /** Runs `f`, charging its duration to `kind`. */
  time<T>(kind: string, f: () => T): T {
    const t0 = performance.now();
    try {
      return f();
    } finally {
      this.add(kind, performance.now() - t0);
    }
  }

  add(kind: string, ms: number): void {
    let c = this.map.get(kind);
    if (!c) this.map.set(kind, (c = { count: 0, totalMs: 0, maxMs: 0 }));
    c.count++;
    c.totalMs += ms;
    if (ms > c.maxMs) c.maxMs = ms;
  }

  snapshot(): Record<string, Cost> {
    const out: Record<string, Cost> = {};
    for (const [k, c] of this.map) out[k] = { count: c.count, totalMs: Math.round(c.totalMs * 10) / 10, maxMs: Math.round(c.maxMs * 10) / 10 };
    return out;
  }

  reset(): void {
    this.map.clear();
  }
}

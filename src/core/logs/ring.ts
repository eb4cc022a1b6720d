/** A fixed-capacity ring of strings: the bounded in-memory tail of one rank. */
export class Ring {
  private readonly items: (string | undefined)[];
  private next = 0;
  private count = 0;

  constructor(readonly capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new Error(`ring capacity must be a positive integer, got ${capacity}`);
    this.items = new Array<string | undefined>(capacity);
  }

  push(s: string): void {
    this.items[this.next] = s;
    this.next = (this.next + 1) % this.capacity;
    if (this.count < this.capacity) this.count++;
  }

  get size(): number {
    return this.count;
  }

  /** The last n items, oldest first. */
  last(n = this.count): string[] {
    const k = Math.max(0, Math.min(n, this.count));
    const out: string[] = new Array<string>(k);
    let i = (this.next - k + this.capacity) % this.capacity;
    for (let j = 0; j < k; j++) {
      out[j] = this.items[i]!;
      i = (i + 1) % this.capacity;
    }
    return out;
  }
}

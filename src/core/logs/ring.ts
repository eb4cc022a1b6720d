/** A fixed-capacity ring buffer: the bounded in-memory tail of a log (the router's per-rank tails, the views' lines). Oldest entries are dropped. */
export class Ring<T> {
  private readonly items: (T | undefined)[];
  private start = 0;
  private size = 0;

  constructor(readonly capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError(`ring capacity must be a positive integer, got ${capacity}`);
    this.items = new Array<T | undefined>(capacity);
  }

  get length(): number {
    return this.size;
  }

  push(item: T): void {
    const end = (this.start + this.size) % this.capacity;
    this.items[end] = item;
    if (this.size < this.capacity) this.size++;
    else this.start = (this.start + 1) % this.capacity;
  }

  /** Oldest first. */
  toArray(): T[] {
    const out = new Array<T>(this.size);
    for (let i = 0; i < this.size; i++) out[i] = this.items[(this.start + i) % this.capacity] as T;
    return out;
  }

  last(): T | undefined {
    return this.size === 0 ? undefined : this.items[(this.start + this.size - 1) % this.capacity];
  }

  /** The newest n entries, oldest first. */
  tail(n: number): T[] {
    const k = Math.max(0, Math.min(n, this.size));
    const out = new Array<T>(k);
    for (let i = 0; i < k; i++) out[i] = this.items[(this.start + this.size - k + i) % this.capacity] as T;
    return out;
  }
}

/**
 * A bounded FIFO of pending events. When full, the OLDEST entries go first
 * (as OPA's event buffer does) and every one that goes is counted: an event
 * is either delivered, still pending, or in `dropped` - never silently lost.
 */
export class BoundedBuffer<T> {
  private items: T[] = [];
  private droppedCount = 0;

  /** `limit`: an integer >= 1 (createDecisionLog checks the options it comes from). */
  constructor(readonly limit: number) {}

  get size(): number {
    return this.items.length;
  }

  /** Events pushed out because the buffer was full. */
  get dropped(): number {
    return this.droppedCount;
  }

  push(item: T): void {
    this.items.push(item);
    this.trim();
  }

  /** Puts a batch that failed to be delivered back in front, in its original order (it is the oldest). */
  requeue(batch: T[]): void {
    this.items = batch.concat(this.items);
    this.trim();
  }

  /** Removes and returns up to n of the oldest entries. */
  take(n: number): T[] {
    return this.items.splice(0, n);
  }

  /** The oldest entries without removing them. */
  peek(n: number): T[] {
    return this.items.slice(0, n);
  }

  /** Gives up on everything pending (counted as dropped); returns how many. */
  discardAll(): number {
    const n = this.items.length;
    this.items = [];
    this.droppedCount += n;
    return n;
  }

  /** Counts one entry given up on for a reason other than a full buffer (e.g. too large to ever send). */
  countDropped(n = 1): void {
    this.droppedCount += n;
  }

  private trim(): void {
    const excess = this.items.length - this.limit;
    if (excess > 0) {
      this.items.splice(0, excess);
      this.droppedCount += excess;
    }
  }
}

/**
 * Packs pending events into gzip-compressed JSON arrays that stay within the
 * upload size limit, as OPA's chunk encoder does: it guesses how many
 * uncompressed bytes fit, grows that guess while chunks come out under 90 %
 * of the limit and halves the batch when a chunk overflows. An event too big
 * on its own loses its nd_builtin_cache first; if still too big it cannot be
 * sent at all (the sink counts it).
 */
import { gzipSync } from "node:zlib";

/** The smallest upload size limit createDecisionLog accepts (OPA has none; below it no gzip body holds an event). */
export const MIN_UPLOAD_SIZE_LIMIT_BYTES = 64;

export type ChunkResult =
  | { kind: "chunk"; body: Buffer; count: number }
  /** The oldest event alone exceeds the limit; `replacement` is it without nd_builtin_cache when that fits. */
  | { kind: "oversize"; replacement?: string };

export class ChunkEncoder {
  /** Uncompressed bytes we expect to fit; adapted after every chunk. */
  private budget: number;

  /** `limitBytes`: an integer >= MIN_UPLOAD_SIZE_LIMIT_BYTES (createDecisionLog checks it). */
  constructor(readonly limitBytes: number) {
    this.budget = limitBytes;
  }

  /** The next chunk from the oldest `events` (JSON texts); count says how many it holds. */
  next(events: string[]): ChunkResult {
    let count = this.countWithinBudget(events);
    for (;;) {
      const body = encode(events.slice(0, count));
      if (body.length <= this.limitBytes) {
        // Room to spare: try larger batches next time (only when this one was cut by the budget).
        if (body.length < this.limitBytes * 0.9 && count < events.length) this.budget = Math.min(this.budget * 2, this.limitBytes * 64);
        return { kind: "chunk", body, count };
      }
      if (count === 1) return this.oversize(events[0]);
      count = Math.max(1, Math.floor(count / 2));
      this.budget = Math.max(this.limitBytes, Math.floor(this.budget / 2));
    }
  }

  private countWithinBudget(events: string[]): number {
    let size = 2;
    let count = 0;
    for (const event of events) {
      size += event.length + 1;
      if (count > 0 && size > this.budget) break;
      count++;
    }
    return count;
  }

  private oversize(event: string): ChunkResult {
    const parsed = JSON.parse(event) as Record<string, unknown>;
    if (!("nd_builtin_cache" in parsed)) return { kind: "oversize" };
    delete parsed.nd_builtin_cache;
    const replacement = JSON.stringify(parsed);
    return encode([replacement]).length <= this.limitBytes ? { kind: "oversize", replacement } : { kind: "oversize" };
  }
}

function encode(events: string[]): Buffer {
  return gzipSync(`[${events.join(",")}]`);
}

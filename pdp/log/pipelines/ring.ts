/**
 * A ring of variable-length records in a SharedArrayBuffer, with one
 * writer (the recording thread) and one reader (the log's worker): how
 * events reach the worker without a message per batch. A postMessage of a
 * few hundred events is a structured clone of ~200 KB on the request
 * thread, and measured as the first call after it running slow (its copies
 * and allocations evict what the next decision needs); a record written
 * here is copied once, into memory that is already mapped.
 *
 * Layout: a control block of Int32 slots, then `capacity` bytes of records.
 * HEAD and TAIL count bytes written and consumed since the start, modulo
 * 2^32 (the capacity is a power of two, so `count & mask` is the offset);
 * HEAD - TAIL is what waits for the reader. A record is its length (u32)
 * then its bytes, padded to 4; a record never wraps: when it does not fit
 * before the end, a PAD length sends the reader back to offset 0.
 *
 * The writer publishes a record by storing HEAD after writing its bytes and
 * the reader frees it by storing TAIL after reading them (Atomics.store /
 * Atomics.load: the bytes are visible before the counter that covers them).
 * A reader that retains (the log's worker) reads ahead of TAIL with its own
 * cursor and frees only what it has settled (release()): what lies between
 * TAIL and its cursor stays intact, so if that reader dies, another can
 * read the same records again from TAIL (worker-log.ts, a restart).
 * SLEEPING says the reader found the ring empty and waits for a message;
 * WAITING says the writer waits for room (RingWriter.waitForRoom), and
 * WANTED how much free room is worth waking it for.
 */

const HEAD = 0;
const TAIL = 1;
const SLEEPING = 2;
const WAITING = 3;
const WANTED = 4;
/**
 * The least free room a waiting writer is woken for (or the whole ring,
 * when smaller). A full ring means the reader is behind; woken as soon as
 * ONE record's room was free, the writer wrote that one record and waited
 * again: a futex wake and two thread switches per record, on both threads
 * (bench-api's full chain waited ~6,800 times in a run of ~20,000 requests). With
 * 64 KiB (~30 events) the writer is woken once per ~30, and a wait lasts
 * as long as the reader takes to read them (a few ms at most).
 */
export const ROOM_TO_WAKE = 64 * 1024;
/** The control block: its own 64 bytes, so the records never share a cache line with the counters. */
const CONTROL_BYTES = 64;
/** A length no record has: the rest of the ring is unused, continue at offset 0. */
const PAD = 0xffffffff;

const align4 = (n: number): number => (n + 3) & ~3;

/** A ring of `capacity` bytes (a power of two, at least 64). */
export function allocateRing(capacity: number): SharedArrayBuffer {
  if (!Number.isInteger(capacity) || capacity < 64 || (capacity & (capacity - 1)) !== 0 || capacity > 2 ** 30) {
    throw new RangeError(`ring capacity must be a power of two between 64 bytes and 1 GiB, got ${capacity}`);
  }
  const buffer = new SharedArrayBuffer(CONTROL_BYTES + capacity);
  // The reader starts idle: the first records written must wake it.
  new Int32Array(buffer, 0, CONTROL_BYTES / 4)[SLEEPING] = 1;
  return buffer;
}

/** Both ends' view of the shared buffer. */
class RingMemory {
  protected readonly control: Int32Array;
  protected readonly bytes: Buffer;
  protected readonly view: DataView;
  protected readonly capacity: number;
  protected readonly mask: number;

  constructor(buffer: SharedArrayBuffer) {
    this.control = new Int32Array(buffer, 0, CONTROL_BYTES / 4);
    this.capacity = buffer.byteLength - CONTROL_BYTES;
    this.mask = this.capacity - 1;
    this.bytes = Buffer.from(buffer, CONTROL_BYTES, this.capacity);
    this.view = new DataView(buffer, CONTROL_BYTES, this.capacity);
  }

  /** Bytes written and not yet consumed. */
  protected used(): number {
    return (Atomics.load(this.control, HEAD) - Atomics.load(this.control, TAIL)) >>> 0;
  }
}

/** Writes primitives into a record; the caller reserves room for the worst case first. */
export class RecordWriter {
  constructor(
    private readonly bytes: Buffer,
    private readonly view: DataView,
    /** Where the next primitive goes. */
    public at: number,
  ) {}

  u8(n: number): void {
    this.bytes[this.at++] = n;
  }

  f64(n: number): void {
    this.view.setFloat64(this.at, n, true);
    this.at += 8;
  }

  u64(n: bigint): void {
    this.view.setBigUint64(this.at, n, true);
    this.at += 8;
  }

  /**
   * Strings (or nulls) as their lengths in UTF-16 units, then the UTF-8 of
   * all of them joined. Short texts are joined and encoded in one call (the
   * call, not the copy, is what a short text costs); a long one (input,
   * result, trail) is encoded where it is, since joining it would first
   * copy it into a new string (most of what a record allocated). UTF-8
   * keeps every string's UTF-16 length (a lone surrogate becomes U+FFFD,
   * still one unit), so the reader cuts the decoded whole at the same
   * places; a text ending in a (necessarily lone) high surrogate has it
   * replaced by U+FFFD first, as encoding it alone would, so it cannot pair
   * with the next text's first unit across the join.
   */
  texts(list: ReadonlyArray<string | null>): void {
    for (const s of list) {
      this.view.setUint32(this.at, s === null ? PAD : s.length, true);
      this.at += 4;
    }
    const sizeAt = this.at;
    this.at += 4;
    const start = this.at;
    let joined = "";
    for (const s of list) {
      if (s === null) continue;
      const text = endsInHighSurrogate(s) ? `${s.slice(0, -1)}\ufffd` : s;
      if (text.length < LONG_TEXT) {
        joined += text;
        continue;
      }
      if (joined !== "") this.at += this.bytes.write(joined, this.at, "utf8");
      joined = "";
      this.at += this.bytes.write(text, this.at, "utf8");
    }
    if (joined !== "") this.at += this.bytes.write(joined, this.at, "utf8");
    this.view.setUint32(sizeAt, this.at - start, true);
  }

  /** Bytes as they are (or null): their length, then them. */
  bytesOrNull(b: Uint8Array | null): void {
    this.view.setUint32(this.at, b === null ? PAD : b.byteLength, true);
    this.at += 4;
    if (b === null) return;
    this.bytes.set(b, this.at);
    this.at += b.byteLength;
  }

  /** The most bytes bytesOrNull(b) takes. */
  static bytesBound(b: Uint8Array | null): number {
    return 4 + (b === null ? 0 : b.byteLength);
  }

  /** The most bytes texts(list) can take: UTF-8 needs at most 3 bytes per UTF-16 unit. */
  static textsBound(list: ReadonlyArray<string | null>): number {
    let units = 0;
    for (const s of list) if (s !== null) units += s.length;
    return 4 * (list.length + 1) + 3 * units;
  }
}

/** A text at least this long (UTF-16 units) is encoded on its own, not joined (RecordWriter.texts). */
const LONG_TEXT = 128;

const endsInHighSurrogate = (s: string): boolean => {
  const last = s.charCodeAt(s.length - 1);
  return last >= 0xd800 && last <= 0xdbff;
};

/** Reads back what a RecordWriter wrote, in the same order. */
export class RecordReader {
  constructor(
    private readonly bytes: Buffer,
    private readonly view: DataView,
    public at: number,
  ) {}

  u8(): number {
    return this.bytes[this.at++];
  }

  f64(): number {
    const n = this.view.getFloat64(this.at, true);
    this.at += 8;
    return n;
  }

  u64(): bigint {
    const n = this.view.getBigUint64(this.at, true);
    this.at += 8;
    return n;
  }

  /** What RecordWriter.bytesOrNull wrote, as a copy (the ring's room is reused once the record is consumed). */
  bytesOrNull(): Uint8Array | null {
    const length = this.view.getUint32(this.at, true);
    this.at += 4;
    if (length === PAD) return null;
    const copy = Uint8Array.prototype.slice.call(this.bytes, this.at, this.at + length);
    this.at += length;
    return copy;
  }

  /** `count` strings (or nulls) that RecordWriter.texts wrote. */
  texts(count: number): Array<string | null> {
    const lengths: number[] = [];
    for (let i = 0; i < count; i++, this.at += 4) lengths.push(this.view.getUint32(this.at, true));
    const bytes = this.view.getUint32(this.at, true);
    this.at += 4;
    const joined = this.bytes.toString("utf8", this.at, this.at + bytes);
    this.at += bytes;
    let from = 0;
    return lengths.map((length) => (length === PAD ? null : joined.slice(from, (from += length))));
  }
}

/** A record's bytes outside the ring (RecordBuffer.encode): for what does not go through it. */
export class RecordBuffer {
  /** `fill` writes at most `bound` bytes; the result holds exactly what it wrote. */
  static encode(bound: number, fill: (w: RecordWriter) => void): Uint8Array {
    const bytes = Buffer.allocUnsafe(bound);
    const w = new RecordWriter(bytes, new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength), 0);
    fill(w);
    return new Uint8Array(bytes.subarray(0, w.at));
  }

  static reader(record: Uint8Array): RecordReader {
    const bytes = Buffer.from(record.buffer, record.byteOffset, record.byteLength);
    return new RecordReader(bytes, new DataView(record.buffer, record.byteOffset, record.byteLength), 0);
  }
}

export class RingWriter extends RingMemory {
  /** The largest record the ring takes (a quarter of it: a burst of ordinary records still fits). */
  get maxRecord(): number {
    return this.capacity / 4 - 4;
  }

  /**
   * Writes one record of at most `bound` bytes with `fill`; false (nothing
   * written) when the ring has no room for it now.
   */
  write(bound: number, fill: (w: RecordWriter) => void): boolean {
    if (bound > this.maxRecord) return false;
    let head = Atomics.load(this.control, HEAD);
    const free = this.capacity - this.used();
    const offset = head & this.mask;
    const before = this.capacity - offset;
    const need = 4 + align4(bound);
    if (before < need) {
      // Not enough room before the end: pad to it and start over at 0 (both must fit).
      if (free < before + need) return false;
      this.view.setUint32(offset, PAD, true);
      head = (head + before) | 0;
      Atomics.store(this.control, HEAD, head);
    } else if (free < need) {
      return false;
    }
    const start = head & this.mask;
    const w = new RecordWriter(this.bytes, this.view, start + 4);
    fill(w);
    const length = w.at - start - 4;
    this.view.setUint32(start, length, true);
    Atomics.store(this.control, HEAD, (head + 4 + align4(length)) | 0);
    return true;
  }

  /** Whether nothing waits to be read. */
  get empty(): boolean {
    return this.used() === 0;
  }

  /**
   * Claims the reader's wake-up: true when it was asleep (the caller must
   * then wake it with a message), false when it is reading anyway.
   */
  claimWake(): boolean {
    return Atomics.compareExchange(this.control, SLEEPING, 1, 0) === 1;
  }

  /**
   * Blocks until the reader has freed room for a record of `bound` bytes
   * (and ROOM_TO_WAKE at least), or `ms` pass. Room freed before the wait
   * began ends it at once.
   */
  waitForRoom(ms: number, bound: number): void {
    const tail = Atomics.load(this.control, TAIL);
    // Twice the record: room enough whether it fits before the ring's end or must start over at 0.
    Atomics.store(this.control, WANTED, Math.min(this.capacity, Math.max(ROOM_TO_WAKE, 2 * (4 + align4(bound)))));
    Atomics.store(this.control, WAITING, 1);
    Atomics.wait(this.control, TAIL, tail, ms);
    Atomics.store(this.control, WAITING, 0);
  }
}

export class RingReader extends RingMemory {
  /** Where the next record is read: TAIL, or ahead of it for a reader that retains. */
  private cursor: number;

  /**
   * `retain`: consume() only moves this reader on; the room is freed by
   * release() (see the header). `from`: where to start reading (a position
   * a reader had), TAIL by default.
   */
  constructor(
    buffer: SharedArrayBuffer,
    private readonly retain = false,
    from?: number,
  ) {
    super(buffer);
    this.cursor = from ?? Atomics.load(this.control, TAIL);
  }

  /** Bytes written and not yet read by this reader. */
  private unread(): number {
    return (Atomics.load(this.control, HEAD) - this.cursor) >>> 0;
  }

  /** The next record (a reader at its first byte, and its length), or null when the ring is empty. */
  peek(): RecordReader | null {
    for (;;) {
      if (this.unread() === 0) return null;
      const offset = this.cursor & this.mask;
      const length = this.view.getUint32(offset, true);
      if (length !== PAD) return new RecordReader(this.bytes, this.view, offset + 4);
      this.moveTo((this.cursor + this.capacity - offset) | 0);
    }
  }

  /** Moves past the record peek() returned: its room goes back to the writer, unless this reader retains. */
  consume(): void {
    const length = this.view.getUint32(this.cursor & this.mask, true);
    this.moveTo((this.cursor + 4 + align4(length)) | 0);
  }

  /** The next record's bytes, copied (as RecordBuffer.encode would have made them), and moves past it; null when empty. */
  take(): Uint8Array | null {
    const reader = this.peek();
    if (reader === null) return null;
    const length = this.view.getUint32(this.cursor & this.mask, true);
    const copy = Uint8Array.prototype.slice.call(this.bytes, reader.at, reader.at + length) as Uint8Array;
    this.consume();
    return copy;
  }

  /** Where this reader is: a position for release(). */
  get position(): number {
    return this.cursor;
  }

  /** Frees the room up to `position` (a value of `position` this reader had). */
  release(position: number): void {
    Atomics.store(this.control, TAIL, position);
    if (Atomics.load(this.control, WAITING) === 1 && this.capacity - this.used() >= Atomics.load(this.control, WANTED)) Atomics.notify(this.control, TAIL);
  }

  private moveTo(position: number): void {
    this.cursor = position;
    if (!this.retain) this.release(position);
  }

  /**
   * Marks the reader asleep when the ring is empty: true when it may wait
   * for a message (the writer wakes it with one), false when a record came
   * in meanwhile (keep reading).
   */
  sleepIfEmpty(): boolean {
    Atomics.store(this.control, SLEEPING, 1);
    if (this.unread() === 0) return true;
    // A record came in before the flag was seen: take the flag back, unless the writer already
    // claimed it (then a wake-up message is on its way; reading now is still right).
    Atomics.compareExchange(this.control, SLEEPING, 1, 0);
    return false;
  }
}

/**
 * Decision ids: UUIDv7 (RFC 9562 §5.7), minted by the PDP for every
 * decision and by the API for the refusals it makes before asking the PDP.
 *
 *   newDecisionId() // "019a7c3e-5b21-7a3f-9c4e-2d1f0b8a6e57"
 *
 * Why v7 and not v4: the decision log's SQLite table has a UNIQUE index on
 * decision_id. Random (v4) keys land on random pages of that index, and once
 * it outgrows the page cache every insert reads and rewrites a cold page:
 * measured here, 39 µs per row against 25 µs with time-ordered keys at 80k
 * rows, and the gap grows with the log. A v7 id starts with the Unix time
 * in milliseconds, so new ids append at the right edge of the index, and
 * sorting ids sorts decisions by time, which auditors like.
 *
 * Within one process ids are strictly increasing (RFC 9562 §6.2 method 1):
 * the 12 bits after the version are a counter, started at a random value in
 * its lower half each new millisecond; if it runs out, or the clock steps
 * back, the timestamp is carried forward instead. The last 62 bits are
 * random (crypto-strength), so ids stay unguessable; what a v7 id reveals
 * is the millisecond of the decision, which the Date header and the log
 * already carry.
 */
import { randomFillSync } from "node:crypto";

/**
 * Random bytes drawn in blocks of 4096 ids: 2 seed a new millisecond's
 * counter, 8 fill rand_b. Why two blocks, the spare filled off the request
 * path: a refill of 400 ids in the middle of a decision cost 30-40 µs there
 * (measured here; its code is cold by then), once every 400 decisions, which
 * is what the PDP bench's p99 read. Refilled between requests it still cools
 * the caches the next decision uses (~10 µs), hence blocks of 4096 ids (40 KB,
 * ~13 µs to fill). A process that never lets the event loop turn (a tight
 * loop, a test) still refills in place.
 */
const RANDOM_PER_ID = 10;
const POOL_BYTES = RANDOM_PER_ID * 4096;
let pool = Buffer.alloc(POOL_BYTES);
let poolAt = POOL_BYTES;
let spare = Buffer.alloc(POOL_BYTES);
let spareState: "empty" | "filling" | "ready" = "empty";

/**
 * Fills the spare block on a later turn of the event loop, between requests
 * rather than inside the decision that noticed it was needed. Synchronously
 * there, not in the thread pool (crypto.randomFill): waking a pool thread
 * cost the decisions running meanwhile more than the 4 µs fill itself.
 */
function fillSpare(): void {
  spareState = "filling";
  setImmediate(() => {
    randomFillSync(spare);
    spareState = "ready";
  });
}

/** The offset of the next id's random bytes, refilling the pool when it runs out. */
function takeRandom(): number {
  if (poolAt + RANDOM_PER_ID > POOL_BYTES) {
    if (spareState === "ready") {
      [pool, spare] = [spare, pool];
      spareState = "empty";
    } else {
      randomFillSync(pool); // also the first block; a spare still filling is kept for next time
    }
    poolAt = 0;
  }
  // Ask for the next block halfway through this one, so it is there before it is needed.
  if (spareState === "empty" && poolAt >= POOL_BYTES / 2) fillSpare();
  const r = poolAt;
  poolAt += RANDOM_PER_ID;
  return r;
}

/**
 * The id's 36 characters are written here and read out as ONE flat string.
 * Why not `+`: twenty concatenations build a tree of cons strings, and every
 * later reader that needs the characters flattens it first, on the request
 * thread: the log's ring write (String::WriteToFlat was ~15% of its drain's
 * samples, perf on bench-pdp), its last-character check (charCodeAt on a
 * cons string goes to the runtime), the Decision-Id header.
 */
const text = Buffer.alloc(36, "-");
const HEX_DIGITS = Buffer.from("0123456789abcdef", "latin1");

/** Two lowercase hex digits of `byte` at `at`. */
function hex(at: number, byte: number): void {
  text[at] = HEX_DIGITS[byte >>> 4];
  text[at + 1] = HEX_DIGITS[byte & 0x0f];
}

let lastMs = -1;
let counter = 0;

/** A new UUIDv7, greater than every id this process minted before. `now` is for tests. */
export function newDecisionId(now: number = Date.now()): string {
  const r = takeRandom();
  if (now > lastMs) {
    lastMs = now;
    counter = ((pool[r] << 8) | pool[r + 1]) & 0x7ff;
  } else if (counter < 0xfff) {
    counter++;
  } else {
    lastMs++; // 4096 ids in one millisecond: borrow the next one
    counter = 0;
  }
  const ms = lastMs;
  const high = Math.floor(ms / 0x10000); // the top 32 of the 48 time bits
  // xxxxxxxx-xxxx-7xxx-Vxxx-xxxxxxxxxxxx: the dashes (8, 13, 18, 23) were written once, by alloc.
  hex(0, (high >>> 24) & 0xff);
  hex(2, (high >>> 16) & 0xff);
  hex(4, (high >>> 8) & 0xff);
  hex(6, high & 0xff);
  hex(9, (ms >>> 8) & 0xff);
  hex(11, ms & 0xff);
  hex(14, 0x70 | (counter >>> 8));
  hex(16, counter & 0xff);
  hex(19, 0x80 | (pool[r + 2] & 0x3f)); // variant 10
  hex(21, pool[r + 3]);
  for (let k = 0; k < 6; k++) hex(24 + 2 * k, pool[r + 4 + k]);
  return text.toString("latin1", 0, 36);
}

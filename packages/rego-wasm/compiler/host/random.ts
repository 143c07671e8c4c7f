/**
 * The random builtins OPA offers, `rand.intn(str, n)` and `uuid.rfc4122(str)`
 * (OPA v1/topdown/numbers.go, uuid.go), supplied by the host: a Wasm module
 * has no random source.
 *
 * OPA caches their answers per query: within one evaluation the same
 * arguments give the same value, across evaluations they are random.
 * `EvaluationRandom` keeps that cache; `reset()` must run before every
 * evaluation (`EvaluationClock.tick()` does it).
 *
 * Errors follow OPA's non-strict mode, as the natively compiled builtins do:
 * a bad operand makes the call undefined.
 */
import { randomBytes, randomInt, randomUUID } from "node:crypto";

/** node:crypto's randomInt takes bounds below 2^48 only. */
const RANDOM_INT_LIMIT = 2 ** 48;
/**
 * OPA reads n as a Go int64: beyond it the operand is "not an integer".
 * (The SDK hands operands over as JS numbers, so int64's extremes round up
 * to 2^63 and are refused here too.)
 */
const INT64_LIMIT = 2 ** 63;

export class EvaluationRandom {
  private readonly ints = new Map<string, number | ArrayBuffer>();
  private readonly uuids = new Map<string, string>();

  /** Forgets every answer: the next evaluation draws afresh. */
  reset(): void {
    // Map#clear allocates a fresh table even for an empty map, and this runs
    // before every evaluation while nearly none of them draws a number.
    if (this.ints.size > 0) this.ints.clear();
    if (this.uuids.size > 0) this.uuids.clear();
  }

  builtins(): Record<string, (...args: unknown[]) => unknown> {
    return {
      "rand.intn": (str, n) => this.intn(str, n),
      "uuid.rfc4122": (key) => this.rfc4122(key),
    };
  }

  /**
   * An integer in [0, |n|). n = 0 gives 0; n and -n share one answer (OPA
   * keys its cache by the string and |n|). A non-string str or a
   * non-integer n (or one beyond int64) is an error, hence undefined.
   */
  private intn(str: unknown, n: unknown): number | ArrayBuffer | undefined {
    if (typeof str !== "string" || typeof n !== "number" || !Number.isInteger(n)) return undefined;
    const bound = Math.abs(n);
    if (bound >= INT64_LIMIT) return undefined;
    if (bound === 0) return 0;
    const key = JSON.stringify([str, bound]);
    let value = this.ints.get(key);
    if (value === undefined) {
      value = bound < RANDOM_INT_LIMIT ? randomInt(bound) : bigRandomBelow(BigInt(bound));
      this.ints.set(key, value);
    }
    return value;
  }

  /**
   * A random (version 4) UUID. OPA checks nothing at run time and keys its
   * cache by the operand's value, so any value is a key (the type checker
   * asks for a string).
   */
  private rfc4122(key: unknown): string {
    const k = JSON.stringify(key);
    let value = this.uuids.get(k);
    if (value === undefined) {
      value = randomUUID();
      this.uuids.set(k, value);
    }
    return value;
  }
}

/**
 * A uniform integer in [0, bound) for bounds past randomInt's range, by
 * rejection sampling over 64 random bits. Returned as JSON text (an
 * ArrayBuffer, which the SDK hands to the module unparsed) because a JS
 * number would round it.
 */
function bigRandomBelow(bound: bigint): ArrayBuffer {
  const span = 1n << 64n;
  const limit = span - (span % bound); // below it, r % bound is uniform
  for (;;) {
    const r = randomBytes(8).readBigUInt64BE();
    if (r < limit) {
      const bytes = new TextEncoder().encode((r % bound).toString());
      return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
    }
  }
}

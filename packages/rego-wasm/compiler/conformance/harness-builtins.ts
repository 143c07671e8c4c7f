/**
 * Builtins OPA's own test harness registers for its conformance cases, and
 * which this runner therefore supplies as host builtins: declared to the
 * compiler (`hostBuiltins`) and implemented here for the SDK
 * (`customBuiltins`), exactly as a real host would add its own.
 *
 * `test.sleep(duration)`: sleeps for a Go duration string ("10ms", "1.5s",
 * "2h45m") and returns null. OPA's harness parses the duration and ignores a
 * parse error (it then sleeps for zero); so does this one. The sleep is
 * synchronous, because the SDK calls host builtins synchronously from inside
 * evaluation: Atomics.wait on a private SharedArrayBuffer blocks the thread
 * for the given time without spinning.
 */
import type { HostBuiltinDecl } from "../builtins";

export const HARNESS_BUILTINS: HostBuiltinDecl[] = [{ name: "test.sleep", arity: 1 }];

/** The implementations, keyed by name, for loadPolicy(wasm, memory, customBuiltins). */
export function harnessBuiltins(): Record<string, (...args: unknown[]) => unknown> {
  return {
    "test.sleep": (d: unknown) => {
      const ms = typeof d === "string" ? parseGoDuration(d) : null;
      if (ms !== null && ms > 0) sleepSync(ms);
      return null;
    },
  };
}

/** Blocks the calling thread for `ms` milliseconds. */
export function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

const UNIT_MS: Record<string, number> = { ns: 1e-6, us: 1e-3, µs: 1e-3, μs: 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/**
 * Go's time.ParseDuration, in milliseconds: an optional sign, then one or
 * more decimal numbers each with a unit (ns, us/µs, ms, s, m, h); "0" alone
 * is allowed. Null when the text is not a duration.
 */
export function parseGoDuration(text: string): number | null {
  let s = text;
  let sign = 1;
  if (s.startsWith("-") || s.startsWith("+")) {
    if (s[0] === "-") sign = -1;
    s = s.slice(1);
  }
  if (s === "0") return 0;
  if (s === "") return null;
  let total = 0;
  const part = /^(\d+\.?\d*|\.\d+)(ns|us|µs|μs|ms|s|m|h)/;
  while (s !== "") {
    const m = part.exec(s);
    if (!m) return null;
    total += Number(m[1]) * UNIT_MS[m[2]!]!;
    s = s.slice(m[0].length);
  }
  return sign * total;
}

/**
 * Builtins a compiled module dispatches to its host (`opa_builtinN`), as the
 * JS functions `loadPolicy(wasm, memory, customBuiltins)` takes.
 *
 * `time.now_ns`: a Wasm module has no clock, so the host supplies it. OPA
 * fixes "now" for a whole evaluation; the host keeps that promise by reading
 * the clock once per evaluation: call `tick()` right before `evaluate()`.
 * The clock is read at the evaluation's first `time.now_ns` (or JWT check),
 * not in tick(): most decisions never ask for the time.
 *
 * `opa.runtime`: what the host discloses about itself; nothing unless told
 * (OPA's own test harness answers `{}` as well).
 *
 * `rand.intn`, `uuid.rfc4122`: see ./random.ts; `tick()` also starts
 * their per-evaluation cache afresh.
 *
 * Public-key JWT builtins (io.jwt.verify_rs256 ..., io.jwt.decode_verify):
 * see ./jwt/; decode_verify's default time is this evaluation's now.
 *
 * GraphQL builtins (graphql.parse_query, graphql.is_valid ...): see ./graphql/.
 */
import { graphqlBuiltins } from "./graphql";
import { jwtBuiltins } from "./jwt";
import { EvaluationRandom } from "./random";
import { x509Builtins } from "./x509";

export class EvaluationClock {
  /** This evaluation's now, or null until something in it asks. */
  private nowNs: number | null = null;
  private readonly random = new EvaluationRandom();

  constructor(private readonly runtimeInfo: Record<string, unknown> = {}) {}

  /** Starts an evaluation: its first `time.now_ns()` reads the wall clock, every later one returns that value. */
  tick(): void {
    this.nowNs = null;
    this.random.reset();
  }

  private now(): number {
    return (this.nowNs ??= Date.now() * 1e6);
  }

  builtins(): Record<string, (...args: unknown[]) => unknown> {
    return {
      "time.now_ns": () => this.now(),
      "opa.runtime": () => this.runtimeInfo,
      ...this.random.builtins(),
      ...jwtBuiltins(() => this.now()),
      ...x509Builtins(),
      ...graphqlBuiltins(),
    };
  }
}

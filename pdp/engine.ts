/**
 * One loaded policy bundle: its Wasm instantiated through
 * @open-policy-agent/opa-wasm, its data set, its revision and entrypoints.
 *
 *   const engine = await Engine.load(bytes, "var/bundle.tar.gz");
 *   engine.evaluate("portcullis/decision", input); // the value, or undefined
 *
 * An Engine never changes after it is loaded: hot reload builds a new one
 * and swaps the reference, so a decision (and the decision log's mask/drop
 * evaluations for it) always runs against the bundle that decided.
 *
 * Evaluation is synchronous and single-threaded; the SDK rewinds the Wasm
 * heap before every evaluation, so an aborted evaluation leaves nothing
 * behind for the next one.
 */
import { createHash } from "node:crypto";
import { loadPolicy, type LoadedPolicy } from "@open-policy-agent/opa-wasm";
import { readBundle } from "./compiler/bundle";
import { EvaluationClock } from "./compiler/host-builtins";
import { messageOf, PdpError } from "./errors";
import type { PolicyEvaluator } from "./types";

const utf8 = new TextEncoder();

export class Engine {
  /** Evaluates any entrypoint of this bundle: what the decision log gets for mask/drop. */
  readonly evaluator: PolicyEvaluator;

  private constructor(
    private readonly policy: LoadedPolicy,
    private readonly clock: EvaluationClock,
    /** Entrypoint name -> the module's numeric id (skips the SDK's name lookup per call). */
    private readonly ids: ReadonlyMap<string, number>,
    readonly revision: string,
    readonly source: string,
    /** sha256 of the bundle bytes: the same bundle delivered twice is not reloaded. */
    readonly digest: string,
    readonly loadedAt: Date,
  ) {
    this.evaluator = (entrypoint, input) => (this.has(entrypoint) ? this.evaluate(entrypoint, input) : undefined);
  }

  /**
   * Reads and instantiates a bundle (`rego build` or `opa build -t wasm`
   * output). Throws PdpError `bundle_invalid` when it is not a bundle or its
   * Wasm or data do not load.
   */
  static async load(bytes: Uint8Array, source: string): Promise<Engine> {
    const digest = Engine.digest(bytes);
    let bundle;
    try {
      bundle = readBundle(bytes);
    } catch (err) {
      throw new PdpError("bundle_invalid", messageOf(err));
    }
    const clock = new EvaluationClock();
    let policy: LoadedPolicy;
    try {
      policy = await loadPolicy(bundle.wasm, undefined, clock.builtins());
      policy.setData(bundle.data);
    } catch (err) {
      throw new PdpError("bundle_invalid", `policy.wasm does not load: ${messageOf(err)}`);
    }
    const ids = new Map<string, number>();
    for (const [name, id] of Object.entries(policy.entrypoints as Record<string, unknown>)) {
      if (typeof id === "number") ids.set(name, id);
    }
    return new Engine(policy, clock, ids, bundle.manifest.revision, source, digest, new Date());
  }

  static digest(bytes: Uint8Array): string {
    return createHash("sha256").update(bytes).digest("hex");
  }

  get entrypoints(): string[] {
    return [...this.ids.keys()].sort();
  }

  has(entrypoint: string): boolean {
    return this.ids.has(entrypoint);
  }

  /**
   * The entrypoint's value for `input`, or undefined when the result set is
   * empty. Throws PdpError `policy_error` when evaluation fails (an abort:
   * conflicting values, a builtin error in strict mode, ...) or when the
   * entrypoint does not exist.
   */
  evaluate(entrypoint: string, input: unknown): unknown {
    const id = this.ids.get(entrypoint);
    if (id === undefined) throw new PdpError("policy_error", `entrypoint ${entrypoint} is not in bundle revision ${JSON.stringify(this.revision)}`);
    let resultSet: unknown;
    try {
      // OPA fixes "now" for one evaluation: read the clock once, here.
      this.clock.tick();
      resultSet = this.policy.evaluate(encodeInput(input), id);
    } catch (err) {
      throw new PdpError("policy_error", `evaluating ${entrypoint}: ${messageOf(err)}`);
    }
    if (!Array.isArray(resultSet)) throw new PdpError("policy_error", `${entrypoint}: the module returned no result set`);
    if (resultSet.length === 0) return undefined;
    if (resultSet.length > 1) throw new PdpError("policy_error", `${entrypoint}: ${resultSet.length} results where one was expected`);
    const binding = resultSet[0] as { result?: unknown } | null;
    return binding === null || typeof binding !== "object" ? undefined : binding.result;
  }
}

/**
 * The SDK treats a falsy input (null, false, 0, "") as "no input"; hand it
 * those as JSON text so `input` is what the caller passed.
 */
function encodeInput(input: unknown): unknown {
  if (input === undefined || input) return input;
  const bytes = utf8.encode(JSON.stringify(input));
  return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
}

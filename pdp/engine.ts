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
 * Evaluation is synchronous and single-threaded; every evaluation starts
 * from the data heap top (the SDK's layout), so an aborted evaluation leaves
 * nothing behind for the next one. On ABI 1.2 modules (ours) Engine calls
 * opa_eval itself (DirectEval, below): the SDK's fast path without its
 * per-call encoder, decoder and copies. On modules with the
 * `portcullis_eval` export (our compiler's), the input is written in the
 * binary input encoding instead (@portcullis/rego-wasm BinaryInputWriter:
 * no JSON.stringify, no text parse in Wasm; the same value), and a boolean
 * or empty result comes back as a code, not a dump. A caller that asks for
 * the evaluation's texts gets the input's JSON text, or, if it says it
 * takes them (EvaluationTexts.binaryInput: decide() for the decision log),
 * those bytes: the log copies them and makes the text (binaryInputJson) on
 * its own turn or in its worker, off the request path.
 */
import { createHash } from "node:crypto";
import type { LoadedPolicy } from "@open-policy-agent/opa-wasm";
import { BINARY_EVAL_EXPORT, BinaryInputWriter, EvaluationClock, loadSizedPolicy, MemoryLimitError, readBundle, RESULT_CODE } from "@portcullis/rego-wasm";
import { messageOf, PdpError } from "./errors";
import { ResultSets, resultSetOf, type ResultSet } from "./result-sets";
import { TrailReader, type RecordedTrail } from "./trail";
import type { BundleRef, PolicyEvaluator } from "./types";

const utf8 = new TextEncoder();

export class Engine {
  /** Evaluates any entrypoint of this bundle: what the decision log gets for mask/drop. */
  readonly evaluator: PolicyEvaluator;
  /** This bundle's identity and bytes, for a decision log that loads its own copy in a worker. */
  readonly ref: BundleRef;
  /** opa_eval called directly (ABI 1.2+), or null to go through the SDK's evaluate. */
  private readonly direct: DirectEval | null;
  /** Reads the decision trail after an evaluation (./trail.ts); null when the module records none. */
  private readonly trail: TrailReader | null;

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
    bytes: Uint8Array,
    wasm: Uint8Array,
  ) {
    this.ref = { key: `${revision}@${digest}`, bytes };
    this.direct = DirectEval.of(policy);
    this.trail = this.direct?.trailReader(wasm) ?? null;
    this.evaluator = (entrypoint, input) => (this.has(entrypoint) ? this.evaluate(entrypoint, input) : undefined);
  }

  /**
   * Reads and instantiates a bundle (`rego build` or `opa build -t wasm`
   * output) with memory sized from what it needs, up to `maxMemoryPages`
   * (64 KiB pages; default and ceiling 16384, 1 GiB: bundle/memory.ts).
   * Throws PdpError `memory_limit_exceeded` when the module or its data needs
   * more than that (the message says both sizes), `bundle_invalid` when it is
   * not a bundle or its Wasm or data do not load.
   */
  static async load(bytes: Uint8Array, source: string, options: { maxMemoryPages?: number } = {}): Promise<Engine> {
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
      policy = await loadSizedPolicy(bundle.wasm, bundle.data, { maxPages: options.maxMemoryPages, builtins: clock.builtins() });
    } catch (err) {
      if (err instanceof MemoryLimitError) throw new PdpError("memory_limit_exceeded", `bundle from ${source}: ${err.message}`);
      throw new PdpError("bundle_invalid", `policy.wasm does not load: ${messageOf(err)}`);
    }
    const ids = new Map<string, number>();
    for (const [name, id] of Object.entries(policy.entrypoints as Record<string, unknown>)) {
      if (typeof id === "number") ids.set(name, id);
    }
    // A copy of exactly these bytes: the caller's array may be a view on a larger buffer.
    return new Engine(policy, clock, ids, bundle.manifest.revision, source, digest, new Date(), new Uint8Array(bytes), bundle.wasm);
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

  /** Whether this bundle's decisions carry a trail (its module records one and Engine reads it). */
  get recordsTrail(): boolean {
    return this.trail !== null;
  }

  /**
   * The entrypoint's value for `input`, or undefined when the result set is
   * empty. Throws PdpError `policy_error` when evaluation fails (an abort:
   * conflicting values, a builtin error in strict mode, ...) or when the
   * entrypoint does not exist. With `texts`, also what the evaluation
   * produced on the way: its JSON texts and its trail.
   */
  evaluate(entrypoint: string, input: unknown, texts?: EvaluationTexts): unknown {
    const id = this.ids.get(entrypoint);
    if (id === undefined) throw new PdpError("policy_error", `entrypoint ${entrypoint} is not in bundle revision ${JSON.stringify(this.revision)}`);
    let resultSet: unknown;
    const raw: RawTexts | undefined = texts ? { binaryInput: texts.binaryInput } : undefined;
    try {
      // OPA fixes "now" for one evaluation: read the clock once, here.
      this.clock.tick();
      resultSet = this.direct ? this.direct.evaluate(id, input, raw) : this.policy.evaluate(encodeInput(input), id);
    } catch (err) {
      throw new PdpError("policy_error", `evaluating ${entrypoint}: ${messageOf(err)}`);
    }
    if (texts) {
      texts.input = raw?.input;
      texts.inputBinary = raw?.inputBinary;
      // Read now: the next evaluation (the log's mask and drop, another request) empties the trail.
      if (this.trail && this.direct && !(input instanceof ArrayBuffer)) texts.trail = this.readTrail(id, entrypoint);
    }
    if (!Array.isArray(resultSet)) throw new PdpError("policy_error", `${entrypoint}: the module returned no result set`);
    if (resultSet.length === 0) return undefined;
    if (resultSet.length > 1) throw new PdpError("policy_error", `${entrypoint}: ${resultSet.length} results where one was expected`);
    const binding = resultSet[0] as { result?: unknown } | null;
    if (binding === null || typeof binding !== "object") return undefined;
    if (texts && raw?.resultSet !== undefined) texts.result = raw.resultSet.resultText;
    return binding.result;
  }

  /** The trail of the evaluation that just ran; a table that does not resolve costs the decision its trail, never the decision. */
  private readTrail(id: number, entrypoint: string): RecordedTrail | undefined {
    try {
      return this.trail?.read(id, entrypoint);
    } catch {
      return undefined;
    }
  }
}

/**
 * JSON texts an evaluation produced anyway (the input written into the
 * module's memory, the result the module dumped), handed back so the
 * decision log can snapshot the decision without serialising its input
 * and result a second time; and the decision trail the module recorded.
 * Filled in only when the engine has them.
 */
export interface EvaluationTexts {
  /**
   * Set by the caller: it takes the binary input bytes (`inputBinary`) in
   * place of the input's JSON text, so the input is evaluated on the binary
   * path when the module and the input allow it.
   */
  binaryInput?: boolean;
  /** JSON.stringify(input), exactly as the policy read it (the JSON path). */
  input?: string;
  /**
   * The binary input bytes the policy read (the binary path; `input` is
   * then absent): binaryInputJson(inputBinary) is the input's text. A VIEW
   * on the module's memory, valid until this engine's next evaluation:
   * whoever keeps it copies it first.
   */
  inputBinary?: Uint8Array;
  /** The result value's JSON text. */
  result?: string;
  /** Which rule body decided and the bodies it depended on (./trail.ts). */
  trail?: RecordedTrail;
}

/** What DirectEval hands back: the input text (or binary input) it wrote and the result set it read (with its texts). */
interface RawTexts {
  /** Asked for: the binary input instead of the input's text (EvaluationTexts.binaryInput). */
  binaryInput?: boolean;
  input?: string;
  inputBinary?: Uint8Array;
  resultSet?: ResultSet;
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

/**
 * The result sets of a boolean rule (an allow, the log's drop) and of an
 * undefined one, recognised in the module's memory and answered without
 * decoding or JSON.parse: for a small rule, turning `[{"result":false}]`
 * into a string and then into two fresh objects cost about a tenth of the
 * whole evaluation. Frozen and shared: Engine.evaluate only reads a result
 * set and hands out its `result`, a boolean here. Any other text is parsed.
 */
const KNOWN_RESULT_SETS: ReadonlyArray<{ bytes: Uint8Array; set: ResultSet }> = ['[{"result":true}]', '[{"result":false}]', "[]"].map((text) => ({
  bytes: utf8.encode(text),
  set: resultSetOf(text, true),
}));

/** The known result set whose text is bytes[start, end), or undefined. */
function knownResultSet(bytes: Uint8Array, start: number, end: number): ResultSet | undefined {
  const length = end - start;
  next: for (const known of KNOWN_RESULT_SETS) {
    if (known.bytes.length !== length) continue;
    for (let i = 0; i < length; i++) if (bytes[start + i] !== known.bytes[i]) continue next;
    return known.set;
  }
  return undefined;
}

type OpaEval = (reserved: number, entrypoint: number, data: number, input: number, inputLen: number, heap: number, format: number) => number;
/** The module's portcullis_eval (packages/rego-wasm binary-input): opa_eval for binary input, answering a RESULT_CODE or a dump's address. */
type BinaryEval = (entrypoint: number, data: number, input: number, inputLen: number, heap: number) => number;
type Fn = (...args: number[]) => number;
/** The ABI's context path (ABI 1.0+), used to evaluate several entrypoints on one parsed input. */
const CONTEXT_EXPORTS = [
  "opa_heap_ptr_set",
  "opa_malloc",
  "opa_json_parse",
  "opa_json_dump",
  "opa_eval_ctx_new",
  "opa_eval_ctx_set_input",
  "opa_eval_ctx_set_data",
  "opa_eval_ctx_set_entrypoint",
  "opa_eval_ctx_get_result",
  "eval",
] as const;

/** The SDK's LoadedPolicy fields its own ABI 1.2 fast path uses (opa-wasm 1.10, src/opa.js evaluate). */
interface PolicyInternals {
  minorVersion: number;
  mem: WebAssembly.Memory;
  dataAddr: number;
  dataHeapPtr: number;
  wasmInstance: { exports: { opa_eval: OpaEval } & Partial<Record<(typeof CONTEXT_EXPORTS)[number], Fn>> & { [BINARY_EVAL_EXPORT]?: BinaryEval } };
}

/**
 * The SDK's ABI 1.2 fast path without its per-call costs: the input's JSON
 * text is encoded straight into Wasm memory (no TextEncoder, no copy), the
 * result is found with a native NUL search and decoded by one shared
 * TextDecoder (the SDK makes an encoder and a decoder per call). Same calls,
 * same memory layout: input at the data heap top, heap above it, rewound by
 * the next evaluation.
 */
class DirectEval {
  /** Whether the module exports the context path: a property of the module, checked once. */
  private readonly hasContextPath: boolean;

  /** The module's binary-input evaluation and the writer for it; null for modules built without it (older compilers, OPA's). */
  private readonly binary: { evaluate: BinaryEval; writer: BinaryInputWriter } | null;

  private constructor(private readonly p: PolicyInternals) {
    const e = p.wasmInstance.exports;
    this.hasContextPath = CONTEXT_EXPORTS.every((name) => typeof e[name] === "function");
    const binaryEval = e[BINARY_EVAL_EXPORT];
    this.binary = typeof binaryEval === "function" ? { evaluate: binaryEval, writer: new BinaryInputWriter(p.mem) } : null;
  }

  /** Null when the module or the SDK does not look as expected: the caller then uses the SDK's evaluate. */
  static of(policy: LoadedPolicy): DirectEval | null {
    const p = policy as unknown as Partial<PolicyInternals>;
    const ok =
      (p.minorVersion ?? 0) >= 2 &&
      p.mem instanceof WebAssembly.Memory &&
      typeof p.dataAddr === "number" &&
      typeof p.dataHeapPtr === "number" &&
      typeof p.wasmInstance?.exports?.opa_eval === "function";
    return ok ? new DirectEval(p as PolicyInternals) : null;
  }

  /** The module's decision trail reader, reading this evaluator's memory view. */
  trailReader(wasm: Uint8Array): TrailReader | null {
    return TrailReader.of(wasm, this.p.wasmInstance.exports, () => this.memory());
  }

  /** The last ArrayBuffer input and its parsed value in Wasm memory, valid until any other evaluation. */
  private parsed: { input: ArrayBuffer; value: number } | null = null;

  /**
   * The result set for `input` (an ArrayBuffer is JSON text already and is
   * not changed by the caller; undefined is no input). The decision log
   * evaluates drop then mask on ONE buffer: the second evaluation reuses the
   * value the first parsed (parsing the event dominates those policies),
   * through the ABI's context path.
   */
  evaluate(entrypoint: number, input: unknown, texts?: RawTexts): unknown {
    if (input instanceof ArrayBuffer && this.hasContextPath) return this.evaluateParsed(entrypoint, input);
    this.parsed = null;
    if (this.binary && (texts === undefined || texts.binaryInput === true) && input !== undefined && !(input instanceof ArrayBuffer)) {
      const at = (this.p.dataHeapPtr + 3) & ~3;
      const length = this.binary.writer.write(input, at);
      if (length >= 0) {
        const resultSet = this.resultOfCode(this.binary.evaluate(entrypoint, this.p.dataAddr, at, length, at + length), texts);
        // The evaluation allocates above the input, so its bytes are intact (until the next evaluation writes there).
        if (texts) {
          const memory = this.memory(); // not mem.buffer: a call into the engine per read
          texts.inputBinary = new Uint8Array(memory.buffer, memory.byteOffset + at, length);
        }
        return resultSet;
      }
    }
    const at = this.p.dataHeapPtr;
    let length = 0;
    if (input instanceof ArrayBuffer) {
      this.reserve(at + input.byteLength);
      this.memory().set(new Uint8Array(input), at);
      length = input.byteLength;
    } else if (input !== undefined) {
      const text = JSON.stringify(input);
      const room = text.length * 3; // the most UTF-8 bytes a UTF-16 string can need
      this.reserve(at + room);
      const bytes = this.memory();
      // Never evaluate a truncated input (that could turn a deny into an
      // allow): Buffer#write stops silently where its room ends, so the room
      // must hold any encoding of the text. Buffer#write, not encodeInto: no
      // subarray view per call, half the time for a small input.
      if (at + room > bytes.length) throw new Error(`input of ${text.length} characters does not fit in policy memory`);
      length = bytes.write(text, at, room, "utf8");
      if (texts) texts.input = text;
    }
    return this.readResultSet(this.p.wasmInstance.exports.opa_eval(0, entrypoint, this.p.dataAddr, at, length, at + length, 0), texts);
  }

  private evaluateParsed(entrypoint: number, input: ArrayBuffer): unknown {
    const e = this.p.wasmInstance.exports as Record<(typeof CONTEXT_EXPORTS)[number], Fn>;
    if (this.parsed?.input !== input) {
      this.parsed = null;
      e.opa_heap_ptr_set(this.p.dataHeapPtr); // frees the previous evaluation, as the fast path does
      const at = e.opa_malloc(input.byteLength);
      this.memory().set(new Uint8Array(input), at);
      const value = e.opa_json_parse(at, input.byteLength);
      if (value === 0) throw new Error("invalid input: not JSON");
      this.parsed = { input, value };
    }
    // Each evaluation allocates above the parsed input and the ones before it; the next new input rewinds.
    const ctx = e.opa_eval_ctx_new();
    e.opa_eval_ctx_set_input(ctx, this.parsed.value);
    e.opa_eval_ctx_set_data(ctx, this.p.dataAddr);
    e.opa_eval_ctx_set_entrypoint(ctx, entrypoint);
    try {
      e.eval(ctx);
    } catch (err) {
      this.parsed = null; // an abort may leave the heap anywhere: parse afresh next time
      throw err;
    }
    return this.readResultSet(e.opa_json_dump(e.opa_eval_ctx_get_result(ctx)));
  }

  /** A Buffer over the module's memory, made again only when the memory grew (growing replaces mem.buffer). */
  private bytes: Buffer | null = null;
  /** The same memory as 32-bit words (for hashing a dump), made with `bytes`. */
  private words = new Int32Array(0);

  /** The module's memory as it is now: every read and write goes through this one view. */
  private memory(): Buffer {
    // Growing the memory (here or inside the module) detaches its old buffer,
    // and a view on a detached buffer has length 0: no mem.buffer read per call.
    if (this.bytes === null || this.bytes.length === 0) {
      this.bytes = Buffer.from(this.p.mem.buffer);
      this.words = new Int32Array(this.p.mem.buffer);
    }
    return this.bytes;
  }

  /**
   * The result set dumped at `at` (NUL-terminated JSON; memory may have
   * grown during evaluation), its text in `texts` when asked for.
   */
  private readResultSet(at: number, texts?: RawTexts): unknown {
    const bytes = this.memory();
    const start = at >>> 0; // an i32 address read as unsigned
    const end = bytes.indexOf(0, start);
    // Buffer's native NUL search; the bytes are decoded and parsed only when not seen lately.
    const set = knownResultSet(bytes, start, end) ?? this.results.read(bytes, this.words, start, end);
    if (texts) texts.resultSet = set;
    return set.value;
  }

  /** What portcullis_eval answered: a boolean rule's result set without any text, else the dumped one (its text in `texts` when asked for). */
  private resultOfCode(code: number, texts?: RawTexts): unknown {
    let known;
    switch (code) {
      case RESULT_CODE.true:
        known = KNOWN_RESULT_SETS[0].set;
        break;
      case RESULT_CODE.false:
        known = KNOWN_RESULT_SETS[1].set;
        break;
      case RESULT_CODE.empty:
        known = KNOWN_RESULT_SETS[2].set;
        break;
      default:
        return this.readResultSet(code, texts);
    }
    if (texts) texts.resultSet = known;
    return known.value;
  }

  /** The result sets this module dumped lately, by their bytes. */
  private readonly results = new ResultSets();

  private reserve(end: number): void {
    const missing = end - this.memory().length;
    if (missing > 0) this.p.mem.grow(Math.ceil(missing / 65536));
  }
}

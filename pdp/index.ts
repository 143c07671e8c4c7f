/**
 * The policy decision point: loads a bundle from a file or a bundle server,
 * decides synchronously from one entrypoint, hot-reloads validated bundles,
 * and hands every decision to the decision log.
 *
 *   const pdp = await createPdp({ bundle: { file: "var/bundle.tar.gz" }, log });
 *   const d = pdp.decide(input, { requestedBy: "10.0.0.7:51234", reqId: 1 });
 *   if (!d.allow) answer(d.status, d.reason); // 503 when the PDP itself failed
 *   pdp.status(); await pdp.close();
 *
 * Reload: new bytes are loaded into a fresh Engine and validated — the
 * decision entrypoint exists, a smoke input evaluates to a valid decision
 * (and the log's mask/drop entrypoints, when present, evaluate without
 * error), and the owner's acceptance check (`check`: the API's start-up
 * check, api/registry/check.ts, so a bundle lacking a policy for a route
 * of the registry is refused on reload exactly as at start) finds nothing
 * — before one reference is swapped. decide() is
 * synchronous, so an evaluation in flight always finishes on the engine it
 * started with. A refused bundle leaves the old one active, is logged, and
 * shows in status().lastError.
 *
 * createPdp resolves after the first load attempt, successful or not; until
 * a bundle is active every decision is a 503 deny (`policy_unavailable`).
 */
import { MAX_MEMORY_PAGES } from "@portcullis/rego-wasm";
import { FileBundleSource, type FileSourceOptions } from "./bundles/file-source";
import { HttpBundleSource, type HttpSourceOptions } from "./bundles/http-source";
import type { BundleSource } from "./bundles/source";
import { decide, recordRefusal, type DecideDeps } from "./decide";
import { Engine } from "./engine";
import { messageOf, PdpError } from "./errors";
import { consoleLogger, type Logger } from "./logger";
import { StatusTracker, type PdpStatus } from "./status";
import type { Decision, DecisionContext, DecisionInput, DecisionLog, RecordedDecision, Refusal, RefusalInput, RequestOutcome } from "./types";
import { validateDecision } from "./validate";

export { PdpError } from "./errors";
export type { DecisionFailureCode, BundleFailureCode, PdpErrorCode } from "./errors";
export type { PdpStatus } from "./status";
export type { Logger, LogEntry } from "./logger";

/** The decision log's policies, evaluated by pdp/log through the record's evaluator. */
export const MASK_ENTRYPOINT = "system/log/mask";
export const DROP_ENTRYPOINT = "system/log/drop";
export const DEFAULT_ENTRYPOINT = "portcullis/decision";

/** What every new bundle must decide without error before it is activated: an anonymous read. */
export const DEFAULT_SMOKE_INPUT: DecisionInput = {
  actor: { id: "anonymous", tenant: null, roles: [] },
  action: "read",
  resource: { type: "pdp_smoke_test" },
  route: { id: "pdp.smoke", method: "GET", version: "v0" },
  fields: { submitted: [] },
  params: [],
};

export interface PdpOptions {
  bundle: FileSourceOptions | HttpSourceOptions;
  log: DecisionLog;
  /** The decision rule, `pkg/rule` or `data.pkg.rule` (default `portcullis/decision`). */
  entrypoint?: string;
  smokeInput?: DecisionInput;
  /** Operational log (default: JSON lines on the console). */
  logger?: Logger;
  /**
   * Run on every bundle before it is activated, the first one included:
   * `decide` evaluates the candidate bundle (its decisions are not logged:
   * the bundle is not deciding requests yet). Any problem returned refuses
   * the bundle (`check_failed`); the active one stays.
   */
  check?: (decide: (input: DecisionInput) => Decision) => string[];
  /**
   * The most memory a bundle's module may use, in 64 KiB pages (default and
   * ceiling 16384 = 1 GiB). Each bundle gets what its module and data need up
   * to this; a bundle needing more is refused with `memory_limit_exceeded`.
   */
  maxMemoryPages?: number;
}

export interface Pdp {
  /** Synchronous, never throws; a PDP failure is a 503 deny. */
  decide(input: DecisionInput, context?: DecisionContext): RecordedDecision;
  /** Records, under `context.decisionId`, a refusal made before the policy was asked (no evaluation). Never throws. */
  refuse(input: RefusalInput, context: DecisionContext, refusal: Refusal): void;
  /** Records how a request ended, beside its decision (the decision log's `outcomes`). Never throws. */
  outcome(outcome: RequestOutcome): void;
  status(): PdpStatus;
  /** Checks the source for a new bundle now; resolves once it is activated, refused or found unchanged. */
  refresh(): Promise<void>;
  /** Stops watchers and pollers, waits for a load in progress, flushes the decision log. */
  close(): Promise<void>;
}

export async function createPdp(options: PdpOptions): Promise<Pdp> {
  checkOptions(options);
  const source = "url" in options.bundle ? new HttpBundleSource(options.bundle) : new FileBundleSource(options.bundle);
  const pdp = new DecisionPoint(options, source);
  await pdp.start();
  return pdp;
}

class DecisionPoint implements Pdp {
  private active: Engine | null = null;
  /** The last refused bundle, so the same bad bytes are not re-validated and re-logged every poll. */
  private refused: string | null = null;
  /** The digest of the bytes the source delivered last (what an HTTP 304 means it still holds). */
  private delivered: string | null = null;
  private loads: Promise<void> = Promise.resolve();
  private closed = false;
  private readonly tracker = new StatusTracker();
  private readonly entrypoint: string;
  private readonly smokeInput: DecisionInput;
  private readonly logger: Logger;
  private readonly deps: DecideDeps;

  constructor(
    private readonly options: PdpOptions,
    private readonly source: BundleSource,
  ) {
    this.entrypoint = normaliseEntrypoint(options.entrypoint ?? DEFAULT_ENTRYPOINT);
    this.smokeInput = options.smokeInput ?? DEFAULT_SMOKE_INPUT;
    const logger = options.logger ?? consoleLogger;
    // A broken logger must not break a load or a poller.
    this.logger = (entry) => {
      try {
        logger(entry);
      } catch {
        /* nothing left to report it to */
      }
    };
    this.deps = { entrypoint: this.entrypoint, log: options.log, logger: this.logger };
  }

  async start(): Promise<void> {
    this.source.start({
      deliver: (bytes) => this.deliver(bytes),
      failed: (err) => this.failed(err),
      unchanged: () => this.tracker.reachable(this.delivered !== null && this.delivered === this.active?.digest),
    });
    await this.source.check();
  }

  decide(input: DecisionInput, context?: DecisionContext): RecordedDecision {
    // Read the reference once: a swap during this call cannot mix two bundles.
    return decide(this.active, this.deps, input, context);
  }

  refuse(input: RefusalInput, context: DecisionContext, refusal: Refusal): void {
    recordRefusal(this.active, this.deps, input, context, refusal);
  }

  outcome(outcome: RequestOutcome): void {
    try {
      this.options.log.recordOutcome?.(outcome);
    } catch (err) {
      this.logger({ level: "error", event: "pdp.decision_log_failed", decision_id: outcome.decisionId, message: messageOf(err) });
    }
  }

  status(): PdpStatus {
    return this.tracker.snapshot();
  }

  async refresh(): Promise<void> {
    await this.source.check();
    await this.loads;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.source.stop();
    await this.loads;
    await this.options.log.flush();
  }

  /** Loads run one at a time, in arrival order; never rejects. */
  private deliver(bytes: Uint8Array): Promise<void> {
    this.loads = this.loads.then(() => this.activate(bytes));
    return this.loads;
  }

  private async activate(bytes: Uint8Array): Promise<void> {
    const digest = Engine.digest(bytes);
    this.delivered = digest;
    if (digest === this.active?.digest || digest === this.refused) {
      this.tracker.reachable(digest === this.active?.digest);
      return;
    }
    try {
      const engine = await Engine.load(bytes, this.source.description, { maxMemoryPages: this.options.maxMemoryPages });
      this.smokeTest(engine);
      this.acceptanceCheck(engine);
      const previous = this.active?.revision;
      this.active = engine; // the swap: one reference
      this.refused = null;
      this.tracker.activated(engine);
      this.logger({
        level: "info",
        event: "pdp.bundle_activated",
        source: engine.source,
        revision: engine.revision,
        previous_revision: previous ?? null,
        entrypoints: engine.entrypoints,
      });
    } catch (err) {
      this.refused = digest;
      const error = err instanceof PdpError ? err : new PdpError("bundle_invalid", messageOf(err));
      this.failed(error, this.active === null ? undefined : "a new bundle was refused; the active one stays");
    }
  }

  private smokeTest(engine: Engine): void {
    if (!engine.has(this.entrypoint)) {
      throw new PdpError(
        "entrypoint_missing",
        `bundle revision ${JSON.stringify(engine.revision)} has no entrypoint ${this.entrypoint} (has: ${engine.entrypoints.join(", ") || "none"})`,
      );
    }
    try {
      const result = engine.evaluate(this.entrypoint, this.smokeInput);
      validateDecision(result, this.smokeInput.actor);
      // The log's policies get an event shaped like the ones they will see.
      const event = {
        decision_id: "00000000-0000-4000-8000-000000000000",
        labels: {},
        timestamp: new Date().toISOString(),
        path: this.entrypoint,
        input: this.smokeInput,
        result,
      };
      for (const ep of [MASK_ENTRYPOINT, DROP_ENTRYPOINT]) if (engine.has(ep)) engine.evaluate(ep, event);
    } catch (err) {
      throw new PdpError("smoke_failed", `bundle revision ${JSON.stringify(engine.revision)} fails its smoke evaluation: ${messageOf(err)}`);
    }
  }

  private acceptanceCheck(engine: Engine): void {
    if (!this.options.check) return;
    const unlogged: DecideDeps = { ...this.deps, log: { record: () => undefined, flush: async () => undefined } };
    let problems: string[];
    try {
      problems = this.options.check((input) => decide(engine, unlogged, input));
    } catch (err) {
      problems = [`the check failed: ${messageOf(err)}`];
    }
    if (problems.length > 0) {
      throw new PdpError("check_failed", `bundle revision ${JSON.stringify(engine.revision)} fails the acceptance check: ${problems.join("; ")}`);
    }
  }

  private failed(error: PdpError, note?: string): void {
    const code =
      error.code === "bundle_unavailable" ||
      error.code === "memory_limit_exceeded" ||
      error.code === "entrypoint_missing" ||
      error.code === "smoke_failed" ||
      error.code === "check_failed"
        ? error.code
        : "bundle_invalid";
    this.tracker.failed(code, error.message);
    this.logger({
      level: "error",
      event: "pdp.bundle_load_failed",
      source: this.source.description,
      code,
      message: error.message,
      active_revision: this.active?.revision ?? null,
      ...(note ? { note } : {}),
    });
  }
}

/** Refuses a misconfiguration at start-up (PdpError `config_invalid`) rather than deny every request later. */
function checkOptions(options: PdpOptions): void {
  const b = options.bundle as Partial<FileSourceOptions & HttpSourceOptions> | undefined;
  if (!b || "file" in b === "url" in b) invalid("bundle needs exactly one of file or url");
  if ("file" in b && (typeof b.file !== "string" || b.file === "")) invalid("bundle.file must be a non-empty path");
  if ("url" in b) {
    const url = URL.canParse(String(b.url)) ? new URL(String(b.url)) : null;
    if (!url || (url.protocol !== "http:" && url.protocol !== "https:")) invalid("bundle.url must be an http(s) URL");
  }
  for (const key of ["pollIntervalMs", "debounceMs", "minDelayMs", "maxDelayMs", "timeoutMs", "maxBytes"] as const) {
    const v = b[key];
    if (v !== undefined && !(typeof v === "number" && Number.isFinite(v) && v > 0)) invalid(`bundle.${key} must be a positive number`);
  }
  if (b.minDelayMs !== undefined && b.maxDelayMs !== undefined && b.maxDelayMs < b.minDelayMs) invalid("bundle.maxDelayMs must not be below minDelayMs");
  if (typeof options.log?.record !== "function" || typeof options.log?.flush !== "function") invalid("log must implement DecisionLog (record, flush)");
  const pages = options.maxMemoryPages;
  if (pages !== undefined && !(Number.isInteger(pages) && pages >= 1 && pages <= MAX_MEMORY_PAGES))
    invalid(`maxMemoryPages must be a whole number of 64 KiB pages from 1 to ${MAX_MEMORY_PAGES}`);
  if (options.entrypoint !== undefined && normaliseEntrypoint(options.entrypoint) === "") invalid("entrypoint must name a rule");
}

function invalid(message: string): never {
  throw new PdpError("config_invalid", message);
}

/** `data.portcullis.decision`, `/portcullis/decision` -> `portcullis/decision`. */
function normaliseEntrypoint(name: string): string {
  return name
    .replace(/^data\./, "")
    .replace(/\./g, "/")
    .replace(/^\/+/, "");
}

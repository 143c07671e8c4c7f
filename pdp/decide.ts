/**
 * One decision, synchronously, fail-closed, on the record.
 *
 *   const d = decide(engine, { entrypoint: "portcullis/decision", log, logger }, input, { reqId: 7 });
 *
 * Whatever goes wrong — no active bundle, an evaluation error, an undefined
 * or malformed result — the answer is a deny with status 503 and a stable
 * reason (`policy_unavailable`, `policy_error`, `invalid_decision`), so the
 * API answers 503 and never 200. Every decision, allow or deny, including
 * the ones the PDP makes itself, is handed to the decision log exactly once,
 * with the evaluator of the bundle that decided (for mask/drop).
 *
 * decide() never throws.
 */
import { newDecisionId } from "./decision-id";
import { messageOf, PdpError, type DecisionFailureCode } from "./errors";
import type { Engine, EvaluationTexts } from "./engine";
import type { Logger } from "./logger";
import type { Decision, DecisionContext, DecisionInput, DecisionLog, DecisionRecord, RecordedDecision, Refusal, RefusalInput } from "./types";
import { validateDecision } from "./validate";

export interface DecideDeps {
  /** Slash form, e.g. `portcullis/decision`. */
  entrypoint: string;
  log: DecisionLog;
  logger: Logger;
}

/** The PDP's own deny: the API answers 503 with this reason. */
export function failureDecision(reason: DecisionFailureCode): Decision {
  return { allow: false, status: 503, reason, scope: {}, fields: { read: [], write: [] } };
}

export function decide(engine: Engine | null, deps: DecideDeps, input: DecisionInput, context: DecisionContext = {}): RecordedDecision {
  const decisionId = typeof context.decisionId === "string" && context.decisionId !== "" ? context.decisionId : newDecisionId();
  const revision = engine?.revision ?? "";
  let decision: Decision;
  let result: unknown;
  let error: { code: DecisionFailureCode; message: string } | undefined;
  let evalNs = 0;
  // The binary input path only for a log that copies the bytes in record() (they are a view on the policy's memory).
  const texts: EvaluationTexts = deps.log.copiesBinaryInput === true ? { binaryInput: true } : {};

  if (engine === null) {
    error = { code: "policy_unavailable", message: "no policy bundle is active" };
  } else {
    const t0 = process.hrtime.bigint();
    try {
      result = engine.evaluate(deps.entrypoint, input, texts);
    } catch (err) {
      error = { code: "policy_error", message: messageOf(err) };
    }
    evalNs = Number(process.hrtime.bigint() - t0);
  }
  if (error === undefined) {
    try {
      decision = validateDecision(result, input?.actor);
    } catch (err) {
      const code = err instanceof PdpError && err.code === "invalid_decision" ? "invalid_decision" : "policy_error";
      error = { code, message: messageOf(err) };
      decision = failureDecision(code);
    }
  } else {
    decision = failureDecision(error.code);
  }

  const record: DecisionRecord = {
    decisionId,
    path: deps.entrypoint,
    input,
    revision,
    context,
    evalNs,
    evaluate: engine?.evaluator ?? null,
    bundle: engine?.ref ?? null,
  };
  if (texts.input !== undefined) record.inputJson = texts.input;
  else if (texts.inputBinary !== undefined) record.inputBinary = texts.inputBinary;
  if (result !== undefined) {
    record.result = result;
    if (texts.result !== undefined) record.resultJson = texts.result;
  }
  if (error !== undefined) record.error = error;
  if (texts.trail !== undefined) record.trail = texts.trail;
  try {
    deps.log.record(record);
  } catch (err) {
    // The log promises not to throw; if it does, the decision still stands
    // (a deny stays a deny) and the failure is visible in the server log.
    safeLog(deps.logger, { level: "error", event: "pdp.decision_log_failed", decision_id: decisionId, message: messageOf(err) });
  }
  if (error !== undefined) {
    // Codes and messages only: the input stays in the decision log, where masking applies.
    safeLog(deps.logger, {
      level: "error",
      event: "pdp.decision_failed",
      decision_id: decisionId,
      path: deps.entrypoint,
      revision,
      code: error.code,
      message: error.message,
    });
  }
  const { allow, status, reason, scope, fields } = decision;
  return { allow, status, reason, scope, fields, decisionId, revision };
}

/**
 * A refusal the API made before asking the policy (bad token, unknown
 * version, rate limit, no such route...), on the record under the
 * request's decision id like any decision: no evaluation, no result, no
 * bundle revision; the event's `custom` says so (see pdp/log). The active
 * bundle's mask and drop policies still apply to it. Never throws.
 */
export function recordRefusal(engine: Engine | null, deps: DecideDeps, input: RefusalInput, context: DecisionContext, refusal: Refusal): void {
  const record: DecisionRecord = {
    decisionId: typeof context.decisionId === "string" && context.decisionId !== "" ? context.decisionId : newDecisionId(),
    path: "",
    input,
    revision: "",
    context,
    evalNs: Number.NaN,
    evaluate: engine?.evaluator ?? null,
    bundle: engine?.ref ?? null,
    refusal,
  };
  try {
    deps.log.record(record);
  } catch (err) {
    safeLog(deps.logger, { level: "error", event: "pdp.decision_log_failed", decision_id: record.decisionId, message: messageOf(err) });
  }
}

function safeLog(logger: Logger, entry: Parameters<Logger>[0]): void {
  try {
    logger(entry);
  } catch {
    // A broken logger must not turn a decision into an exception.
  }
}

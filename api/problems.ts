/**
 * Errors as RFC 9457 problem details (`application/problem+json`).
 *
 *   throw new Problem("not_found");                       // 404, the stock title and detail
 *   throw new Problem("invalid_param", { detail: "unknown query parameter \"debug\"" });
 *
 * Every problem has a stable `type` (urn:portcullis:problem:<code>) so
 * clients branch on the code, never on a message, and carries the request's
 * `decision_id` (the PDP's decision id, or the API's own id when the chain
 * refused before asking the PDP). Details never echo secrets or say whether
 * a row exists outside the caller's reach: `not_found` reads the same for a
 * missing row and for somebody else's.
 */
import type { Response } from "express";
import { sendJsonText } from "./send";

export const PROBLEM_TYPE_PREFIX = "urn:portcullis:problem:";

interface ProblemSpec {
  status: number;
  title: string;
  detail: string;
}

/** The catalogue: one entry per code, so the same failure always reads the same. */
export const PROBLEMS = {
  invalid_token: { status: 401, title: "Unauthorized", detail: "The bearer token is missing, malformed, expired or not issued for this API." },
  authentication_required: { status: 401, title: "Unauthorized", detail: "This operation requires a bearer token." },
  account_inactive: { status: 403, title: "Forbidden", detail: "The account is suspended, disabled or banned." },
  forbidden: { status: 403, title: "Forbidden", detail: "The policy does not allow this operation." },
  field_not_writable: { status: 403, title: "Forbidden", detail: "The request tries to set a field that cannot be set through this operation." },
  not_found: { status: 404, title: "Not Found", detail: "No such resource." },
  route_not_found: { status: 404, title: "Not Found", detail: "No such route." },
  unknown_version: { status: 404, title: "Not Found", detail: "No such API version." },
  version_retired: { status: 410, title: "Gone", detail: "This API version has been retired." },
  invalid_test_run: { status: 400, title: "Bad Request", detail: "The Portcullis-Test-Run credential is not valid for this instance." },
  invalid_param: { status: 400, title: "Bad Request", detail: "The query string is not accepted by this route." },
  invalid_body: { status: 400, title: "Bad Request", detail: "The request body does not match the route's schema." },
  forbidden_key: { status: 400, title: "Bad Request", detail: "The request body contains a key that is never accepted." },
  version_conflict: { status: 400, title: "Bad Request", detail: "The request names two different API versions." },
  unsupported_media_type: { status: 415, title: "Unsupported Media Type", detail: "The request body must be application/json." },
  payload_too_large: { status: 413, title: "Payload Too Large", detail: "The request body is too large." },
  not_acceptable: { status: 406, title: "Not Acceptable", detail: "The requested media type is not served." },
  conflict: { status: 409, title: "Conflict", detail: "The resource is not in a state that allows this operation." },
  rate_limited: { status: 429, title: "Too Many Requests", detail: "The rate limit for this route is exhausted; retry later." },
  rate_limit_unavailable: {
    status: 503,
    title: "Service Unavailable",
    detail: "The shared rate-limit store cannot be reached; the request was not carried out. Retry later.",
  },
  malformed_request: { status: 400, title: "Bad Request", detail: "The request is not well-formed HTTP." },
  request_timeout: { status: 408, title: "Request Timeout", detail: "The request was not received in time." },
  headers_too_large: { status: 431, title: "Request Header Fields Too Large", detail: "The request's header fields are too large or too many." },
  database_busy: { status: 503, title: "Service Unavailable", detail: "The data store is locked by another writer; nothing was changed. Retry later." },
  database_unavailable: { status: 503, title: "Service Unavailable", detail: "The data store cannot be reached; nothing was changed. Retry later." },
  policy_unavailable: { status: 503, title: "Service Unavailable", detail: "The policy decision point could not decide; the request was denied." },
  decision_log_unavailable: {
    status: 503,
    title: "Service Unavailable",
    detail: "The decision log cannot store decisions now; the request was not carried out.",
  },
  internal_error: { status: 500, title: "Internal Server Error", detail: "The request failed." },
} satisfies Record<string, ProblemSpec>;

export type ProblemCode = keyof typeof PROBLEMS;

export class Problem extends Error {
  readonly code: ProblemCode;
  readonly status: number;
  readonly title: string;
  readonly detail: string;
  /** Extension members (e.g. the policy's `reason`); never secrets. */
  readonly extensions: Record<string, unknown>;

  constructor(code: ProblemCode, options: { status?: number; detail?: string; extensions?: Record<string, unknown> } = {}) {
    const spec: ProblemSpec = PROBLEMS[code];
    super(`${code}: ${options.detail ?? spec.detail}`);
    this.code = code;
    this.status = options.status ?? spec.status;
    this.title = spec.title;
    this.detail = options.detail ?? spec.detail;
    this.extensions = options.extensions ?? {};
  }
}

/**
 * The problem for a PDP deny. The policy's reason picks the code: 401s are
 * authentication problems, 404s are `not_found` (identical to a missing row),
 * 503s are the PDP's own failures; everything else is a 403 carrying the
 * policy's reason.
 */
export function problemForDecision(status: number, reason: string): Problem {
  if (status === 401) return new Problem("authentication_required");
  if (status === 404) return new Problem("not_found");
  if (status >= 500) return new Problem("policy_unavailable", { status: 503 });
  if (reason === "field_not_writable") return new Problem("field_not_writable", { extensions: { reason } });
  return new Problem("forbidden", { status: status >= 400 && status < 500 ? status : 403, extensions: { reason } });
}

/** The protection space named in every Bearer challenge (RFC 6750 3). */
export const BEARER_REALM = "portcullis";

/**
 * The `WWW-Authenticate` challenge every 401 carries (RFC 9110 11.6.1,
 * RFC 6750 3): `error="invalid_token"` when a token was sent and refused,
 * and no error code when the request carried no credentials (RFC 6750 3.1).
 */
export function bearerChallenge(problem: Problem): string | undefined {
  if (problem.status !== 401) return undefined;
  return problem.code === "invalid_token" ? `Bearer realm="${BEARER_REALM}", error="invalid_token"` : `Bearer realm="${BEARER_REALM}"`;
}

export function sendProblem(res: Response, problem: Problem, decisionId: string, instance?: string): void {
  const challenge = bearerChallenge(problem);
  if (challenge !== undefined) res.setHeader("WWW-Authenticate", challenge);
  const body: Record<string, unknown> = {
    type: PROBLEM_TYPE_PREFIX + problem.code,
    title: problem.title,
    status: problem.status,
    detail: problem.detail,
    ...problem.extensions,
    decision_id: decisionId,
  };
  if (instance !== undefined) body.instance = instance;
  sendJsonText(res, problem.status, "application/problem+json", JSON.stringify(body));
}

/**
 * What the chain learns about one request, step by step, kept in
 * `res.locals` under one typed key. Each middleware fills its part; later
 * steps read it. Nothing here comes from client-controlled input without
 * having been verified by the step that set it.
 */
import { newDecisionId } from "../pdp/decision-id";
import type { Response } from "express";
import type { Actor, RecordedDecision } from "../pdp/types";
import type { QueryValues } from "./middleware/guard-params";
import type { Problem } from "./problems";
import type { RouteRecord } from "./registry/types";
import type { VersionRecord } from "./versions";

/** The result of the act step, before projection. */
export interface ActResult {
  status: number;
  /** Response headers the operation decides (e.g. Location of a created job); the project step sets them. */
  headers?: Record<string, string>;
  /**
   * One public view, a list of them, a body that is not cut by fields (openapi, metrics), or a view
   * whose `rows` member is answered as CSV (text/csv) after the cut.
   */
  body:
    | { one: Record<string, unknown> }
    | { many: Array<Record<string, unknown>>; wrap: string; extra?: Record<string, unknown> }
    | { raw: unknown }
    | { csv: { view: Record<string, unknown>; rows: string; columns: readonly string[]; filename: string } };
}

export interface RequestState {
  /** The request's decision id, minted on arrival (UUIDv7); the PDP decides under the same id. */
  decisionId: string;
  started: bigint;
  /** For the log: `ip:port` of the client socket, or `client (via proxy-ip:port)` when a trusted proxy forwarded it. */
  client: string;
  /** The client's address (middleware/client-address.ts: the socket peer, or X-Forwarded-For through trusted proxies only): the key of per-address budgets. */
  address: string;
  actor: Actor;
  /** Set when a valid token named an account that is not active (denied before the PDP). */
  route?: RouteRecord;
  version?: VersionRecord;
  /** The vendor media type the client negotiated (`Accept: application/vnd.portcullis.v2+json`), echoed in Content-Type. */
  mediaType?: string;
  /** Query parameter names present. */
  params: string[];
  /** Validated query values (guard params); empty when none were sent. */
  query: QueryValues;
  /** The parsed JSON body (guard body), before the act step keeps only the decision's write fields; empty when none was sent. */
  body: Record<string, unknown>;
  /** Body field names submitted (top level, plus protected names found anywhere). */
  submitted: string[];
  /** Resource attributes for the decision (tenant/owner looked up within the actor's tenant). */
  resource: { id?: string; tenant?: string; owner?: string };
  /** A guard's refusal (bad parameter, bad body), answered after the PDP unless the PDP denies first. */
  refusal?: Problem;
  decision?: RecordedDecision;
  result?: ActResult;
  /** The problem code answered, for the log and security events. */
  problem?: string;
  /** Why a bearer token was refused (a class, never the token): malformed, bad_signature, expired, unknown_subject, ... */
  tokenFailure?: string;
  /**
   * For an allowed request naming one object: whether the operation's query
   * through the decision's scope found it (false: answered 404 not_found).
   */
  scopeFound?: boolean;
  /** The verified test run the request belongs to (api/identity/test-run.ts); never set from an unverified header. */
  testRun?: string;
  /** Why a test-run credential was refused (a class, never the credential). */
  testRunFailure?: string;
  /** The request's outcome has been handed to the decision log (once per request). */
  outcomeRecorded?: boolean;
}

export const ANONYMOUS: Actor = Object.freeze({ id: "anonymous", tenant: null, roles: [] as string[] }) as Actor;

export function initState(res: Response, address: string, client: string): RequestState {
  const state: RequestState = {
    decisionId: newDecisionId(),
    started: process.hrtime.bigint(),
    client,
    address,
    actor: ANONYMOUS,
    params: [],
    query: {},
    body: {},
    submitted: [],
    resource: {},
  };
  res.locals.portcullis = state;
  return state;
}

export function stateOf(res: Response): RequestState {
  const state = res.locals.portcullis as RequestState | undefined;
  if (!state) throw new Error("request state missing: the log step must run first");
  return state;
}

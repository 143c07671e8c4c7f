/**
 * Step "test run" (right after log, before authentication, so a run's
 * anonymous and bad-token cells are marked too): a request carrying a
 * `Portcullis-Test-Run` credential (api/identity/test-run.ts) belongs to
 * that verified run; its id goes on the request's outcome, log line and
 * security events, where auditors filter or exclude it.
 *
 * A credential that does not verify (forged, expired, another instance's,
 * a bearer token in its place, two of them) never marks anything: the
 * request is refused, 400 `invalid_test_run`, and the attempt is a
 * security event. Refusing rather than ignoring it tells a test tool at
 * once that its run is not marked, and leaves no unmarked-but-suspicious
 * traffic to guess about.
 */
import type { NextFunction, Request, Response } from "express";
import { stateOf } from "../context";
import type { ApiDeps } from "../deps";
import { TEST_RUN_HEADER } from "../identity/test-run";
import { tokenFailureClass } from "../identity/verifier";
import { Problem } from "../problems";

export function markTestRun(deps: Pick<ApiDeps, "verifyTestRun">) {
  // Not async: most requests carry no credential and go on in the same turn, without a promise.
  return function markTestRun(req: Request, res: Response, next: NextFunction): void | Promise<void> {
    const header = req.headers[TEST_RUN_HEADER];
    if (header === undefined) return next();
    return mark(header, res, next);
  };

  async function mark(header: string | string[], res: Response, next: NextFunction): Promise<void> {
    const state = stateOf(res);
    // Node joins a repeated header with ", ": two credentials are no credential.
    const credential = Array.isArray(header) ? header.join(", ") : header.trim();
    if (credential.includes(",") || credential === "") {
      state.testRunFailure = "malformed";
      throw new Problem("invalid_test_run");
    }
    try {
      state.testRun = await deps.verifyTestRun(credential);
    } catch (err) {
      state.testRunFailure = tokenFailureClass(err);
      throw new Problem("invalid_test_run");
    }
    next();
  }
}

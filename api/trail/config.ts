/**
 * What the service does while its decision log (the audit trail) cannot
 * store decisions: setting `decisionLog.onFailure`
 * (PORTCULLIS_DECISION_LOG_ON_FAILURE, config/settings.ts).
 *
 *   refuse-writes  (default) state-changing requests are refused with 503
 *                  `decision_log_unavailable` and Retry-After; reads go on
 *                  (their decisions are counted as lost once the log's
 *                  bounded buffer is full)
 *   refuse-all     every request is refused except /health and /metrics,
 *                  which report the outage
 *   fail-open      everything is served; the loss is only reported
 *
 * An access-control service that cannot record its decisions should not
 * keep changing state.
 */
export const LOG_FAILURE_STANCES = ["refuse-writes", "refuse-all", "fail-open"] as const;
export type LogFailureStance = (typeof LOG_FAILURE_STANCES)[number];

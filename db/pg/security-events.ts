/**
 * The security events store on PostgreSQL: db/security-events.ts's checks
 * (clipped text, capped detail), append-only at three levels: this module
 * offers no update or delete, the service role is granted only INSERT and
 * SELECT, and triggers refuse UPDATE, DELETE and TRUNCATE for every role.
 *
 * Not tenant-scoped: an event's tenant is nullable (an anonymous probe has
 * none) and auditors read across tenants, so this table has no row-level
 * policy; what protects it is that nothing can change a row once written.
 */
import { checkLimit } from "../sql";
import { DEFAULT_EVENTS_LIMIT, detailJson, filterText, MAX_EVENTS_LIMIT, normaliseSince, optionalText, requiredText } from "../security-events";
import type { AsyncSecurityEventsRepository } from "../store";
import type { SecurityEventRow } from "../types";
import type { Session } from "./session";

const COLUMNS = "id, at, kind, actor_id, tenant_id, route_id, decision_id, test_run, detail";

export function pgSecurityEventsRepository(session: Session, now: () => Date = () => new Date()): AsyncSecurityEventsRepository {
  return {
    async record(event) {
      await session.query(`INSERT INTO security_events (at, kind, actor_id, tenant_id, route_id, decision_id, test_run, detail) VALUES ($1, $2, $3, $4, $5, $6, $7, $8::json)`, [
        now().toISOString(),
        requiredText(event.kind, "kind", 100),
        requiredText(event.actorId, "actorId"),
        optionalText(event.tenantId, "tenantId"),
        requiredText(event.routeId, "routeId"),
        optionalText(event.decisionId, "decisionId"),
        optionalText(event.testRun, "testRun"),
        detailJson(event.detail),
      ]);
    },

    async query(filter) {
      const where: string[] = [];
      const params: unknown[] = [];
      // Each condition is a fixed text; only the values vary, as parameters.
      if (filter.kind !== undefined) {
        params.push(filterText(filter.kind, "kind"));
        where.push(`kind = $${params.length}`);
      }
      if (filter.actorId !== undefined) {
        params.push(filterText(filter.actorId, "actorId"));
        where.push(`actor_id = $${params.length}`);
      }
      if (filter.testRun !== undefined) {
        params.push(filterText(filter.testRun, "testRun"));
        where.push(`test_run = $${params.length}`);
      }
      if (filter.excludeTestRuns) where.push("test_run IS NULL");
      if (filter.since !== undefined) {
        params.push(normaliseSince(filterText(filter.since, "since")));
        where.push(`at >= $${params.length}`);
      }
      params.push(filter.limit === undefined ? DEFAULT_EVENTS_LIMIT : checkLimit(filter.limit, MAX_EVENTS_LIMIT));
      const sql = `SELECT ${COLUMNS} FROM security_events${where.length > 0 ? " WHERE " + where.join(" AND ") : ""} ORDER BY at DESC, id DESC LIMIT $${params.length}`;
      const { rows } = await session.query<SecurityEventRow>(sql, params);
      return rows;
    },
  };
}

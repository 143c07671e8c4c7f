/**
 * The security events store on PostgreSQL: db/security-events.ts's checks
 * (clipped text, capped detail), append-only at three levels: this module
 * offers no update or delete, the service role is granted only INSERT and
 * SELECT, and triggers refuse UPDATE, DELETE and TRUNCATE for every role.
 *
 * Not tenant-scoped: an event's tenant is nullable (an anonymous probe has
 * none) and auditors read across tenants, so this table has no row-level
 * policy; what protects it is that nothing can change a row once written.
 *
 * The store's recordLater() holds events in memory and writes them in one
 * transaction on a timer (db/write-behind.ts asyncWriteBehind), as SQLite's
 * does: held while the database cannot be reached, dropped and counted only
 * past the bound.
 */
import { checkLimit } from "../sql";
import {
  DEFAULT_EVENTS_LIMIT,
  eventParams,
  EVENTS_FLUSH_INTERVAL_MS,
  filterText,
  MAX_EVENTS_LIMIT,
  MAX_HELD_EVENTS,
  normaliseSince,
  type EventParams,
} from "../security-events";
import type { AsyncSecurityEventsRepository, StoreSecurityEvents } from "../store";
import type { WriteBehindStats } from "../write-behind";
import { asyncWriteBehind } from "../write-behind";
import type { SecurityEventRow } from "../types";
import type { Session } from "./session";

const COLUMNS = "id, at, kind, actor_id, tenant_id, route_id, decision_id, test_run, detail";
const INSERT = `INSERT INTO security_events (at, kind, actor_id, tenant_id, route_id, decision_id, test_run, detail) VALUES ($1, $2, $3, $4, $5, $6, $7, $8::json)`;

export function pgSecurityEventsRepository(session: Session, now: () => Date = () => new Date()): AsyncSecurityEventsRepository {
  return {
    async record(event) {
      await session.query(INSERT, eventParams(event, now()));
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

/** The store's security events: the repository plus the write-behind the API records through. */
export function pgStoreSecurityEvents(session: Session, now: () => Date = () => new Date()): StoreSecurityEvents & { stats(): WriteBehindStats } {
  const repository = pgSecurityEventsRepository(session, now);
  const buffer = asyncWriteBehind<EventParams>({
    intervalMs: EVENTS_FLUSH_INTERVAL_MS,
    maxKeys: MAX_HELD_EVENTS,
    write: (events) =>
      session.atomic(async (tx) => {
        for (const event of events) await tx.query(INSERT, event);
      }),
  });
  let sequence = 0;
  return {
    ...repository,
    recordLater(event) {
      buffer.add(String(++sequence), eventParams(event, now()));
    },
    flush: buffer.flush,
    stats: buffer.stats,
    async query(filter) {
      // What is held is written first when it can be; an unreachable database fails the read anyway.
      await buffer.flushQuietly();
      return repository.query(filter);
    },
  };
}

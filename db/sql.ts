/**
 * Small SQL helpers shared by the repositories: a prepared-statement cache,
 * LIKE-pattern escaping, and the input checks every query applies before any
 * value reaches SQLite (always as a bound parameter).
 */
import type Database from "better-sqlite3";
import { DbInputError } from "./types";

export type Prepare = (sql: string) => Database.Statement;

/**
 * Prepares each SQL text once per connection. The texts are fixed strings
 * (scope fragments included), so the cache stays small and bounded.
 */
export function statementCache(db: Database.Database): Prepare {
  const cache = new Map<string, Database.Statement>();
  return (sql) => {
    let stmt = cache.get(sql);
    if (stmt === undefined) {
      stmt = db.prepare(sql);
      cache.set(sql, stmt);
    }
    return stmt;
  };
}

/** `%` and `_` in user text match themselves, not "anything": use with ESCAPE '\'. */
export function likeContains(q: string): string {
  return "%" + q.replace(/[\\%_]/g, (c) => "\\" + c) + "%";
}

/** Longest search text accepted: enough for an email, short enough to keep LIKE cheap. */
export const MAX_QUERY_LENGTH = 200;
/** Ceiling for any page or search size, whatever the caller asks. */
export const MAX_LIMIT = 100;

export function checkId(id: unknown, what = "id"): string {
  if (typeof id !== "string" || id === "" || id.length > 200)
    throw new DbInputError("invalid_input", `${what} must be a non-empty string of at most 200 characters`);
  return id;
}

export function checkQuery(q: unknown): string {
  if (typeof q !== "string") throw new DbInputError("invalid_input", "search text must be a string");
  if (q.length > MAX_QUERY_LENGTH) throw new DbInputError("invalid_input", `search text longer than ${MAX_QUERY_LENGTH} characters`);
  return q;
}

/** A positive integer limit, capped at `max` (a huge limit is clamped, not an error). */
export function checkLimit(limit: unknown, max = MAX_LIMIT): number {
  if (typeof limit !== "number" || !Number.isInteger(limit) || limit < 1) throw new DbInputError("invalid_input", "limit must be a positive integer");
  return Math.min(limit, max);
}

export function checkOffset(offset: unknown): number {
  if (typeof offset !== "number" || !Number.isSafeInteger(offset) || offset < 0)
    throw new DbInputError("invalid_input", "offset must be a non-negative integer");
  return offset;
}

/** Refuses a value outside a fixed allow-list (statuses, roles). */
export function checkOneOf<T extends string>(value: unknown, allowed: readonly T[], what: string): T {
  if (typeof value !== "string" || !(allowed as readonly string[]).includes(value)) {
    throw new DbInputError("invalid_input", `${what} must be one of ${allowed.join(", ")}`);
  }
  return value as T;
}

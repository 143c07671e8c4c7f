/**
 * When PostgreSQL cannot answer, the API must say so at once (503
 * `database_unavailable`), not hang and not call it a bug (500). This module
 * tells the driver's "no database" errors from every other error, and keeps
 * the store's health: unavailable from the first such failure until a
 * statement succeeds again, probed on a timer meanwhile so that health
 * recovers without waiting for traffic.
 *
 *   const availability = trackAvailability(() => pool.query("SELECT 1"));
 *   try { ... } catch (err) { throw availability.classify(err); }   // DatabaseUnavailableError or err itself
 *
 * Every wait is bounded by the pool's settings (pool.ts): connecting and
 * waiting for a pooled connection (connectTimeoutMs), a statement on the
 * server (statement_timeout) and on the client (query_timeout, for a server
 * that stopped answering without closing the socket).
 */
import type { StoreHealth } from "../store";
import { DatabaseUnavailableError } from "../unavailable";

/**
 * SQLSTATEs that mean "no database to talk to right now": connection
 * exceptions (class 08), the server shutting down or terminating this backend
 * (57P01 admin_shutdown, what pg_terminate_backend sends; 57P02, 57P03),
 * too many connections (53300), a statement cancelled by its timeout (57014).
 */
const UNAVAILABLE_STATES = /^(08...|57P0[1-3]|53300|57014)$/;

/** Socket-level failures reported by node. */
const SOCKET_CODES = new Set(["ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "EPIPE", "EHOSTUNREACH", "ENETUNREACH", "ENOTFOUND", "EAI_AGAIN"]);

/** What node-postgres and its pool throw without a code (their messages are stable across 8.x). */
const DRIVER_MESSAGES = [
  "Connection terminated",
  "timeout exceeded when trying to connect",
  "Query read timeout",
  "Client has encountered a connection error and is not queryable",
  "Client was closed and is not queryable",
];

export function isUnavailable(err: unknown): boolean {
  if (err instanceof DatabaseUnavailableError) return true;
  if (typeof err !== "object" || err === null) return false;
  const code = (err as { code?: unknown }).code;
  if (typeof code === "string" && (UNAVAILABLE_STATES.test(code) || SOCKET_CODES.has(code))) return true;
  const message = (err as { message?: unknown }).message;
  return typeof message === "string" && DRIVER_MESSAGES.some((m) => message.startsWith(m));
}

/** How often a store found unavailable asks the server again. */
export const PROBE_INTERVAL_MS = 1000;

export interface Availability {
  /** err as DatabaseUnavailableError when it means the database cannot answer (and the store turns unavailable); else err itself. */
  classify(err: unknown): unknown;
  /** A statement succeeded: the database answers. */
  succeeded(): void;
  health(): StoreHealth;
  /** Stops probing (the store closes). */
  stop(): void;
}

export function trackAvailability(probe: () => Promise<unknown>, intervalMs = PROBE_INTERVAL_MS): Availability {
  let down: { since: string; error: string } | undefined;
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;

  const schedule = (): void => {
    if (timer || stopped) return;
    timer = setTimeout(() => {
      timer = undefined;
      probe().then(succeeded, (err: unknown) => {
        if (down && isUnavailable(err)) down.error = messageOf(err);
        schedule();
      });
    }, intervalMs).unref();
  };

  function succeeded(): void {
    if (!down) return;
    down = undefined;
    if (timer) clearTimeout(timer);
    timer = undefined;
  }

  return {
    classify(err) {
      if (!isUnavailable(err)) return err;
      const message = messageOf(err);
      if (down) down.error = message;
      else down = { since: new Date().toISOString(), error: message };
      schedule();
      return err instanceof DatabaseUnavailableError ? err : new DatabaseUnavailableError(`the database is unavailable: ${message}`, { cause: err });
    },
    succeeded,
    health: () => (down ? { available: false, since: down.since, error: down.error } : { available: true }),
    stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      timer = undefined;
    },
  };
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/**
 * Reading the inventory's counts from the service's store: a SQLite file or
 * the PostgreSQL database every instance of a scaled-out service counts
 * into. The CLI picks the store once per report (cli/audit-store.ts: --db,
 * else PORTCULLIS_DATABASE_URL, else the default file), so every count of a
 * report (traffic, callers of deprecated versions, the version trend,
 * account roles for an access log) comes from the same store.
 *
 *   const ref = auditStore(flagOrUndefined, DEFAULT_DB_FILE);   // cli/audit-store.ts
 *   const got = await readCounts(ref, "traffic database", (store) => store.traffic.summary({ since }));
 *   // -> { value, from: "var/portcullis.db" } or { note: "no traffic database at var/portcullis.db" }
 *
 * Both stores are read through the one asynchronous repository contract
 * (db/store.ts). A missing or unreadable store is a note, not an error: a
 * report without counts says what it could not measure. The database URL is
 * reported without its credentials.
 */
import * as fs from "node:fs";
import { openDatabase } from "../../db";
import { openPgStore } from "../../db/pg";
import { sqliteStore } from "../../db/sqlite-store";
import type { DataStore } from "../../db/store";

/** Which store (cli/audit-store.ts `AuditStore` has this shape). */
export type CountsStoreRef = { kind: "sqlite"; file: string } | { kind: "postgres"; url: string };

/** The store's name for a report: the file, or the database URL without credentials. */
export function describeStore(ref: CountsStoreRef): string {
  if (ref.kind === "sqlite") return ref.file;
  try {
    const u = new URL(ref.url);
    return `${u.protocol}//${u.host}${u.pathname}`;
  } catch {
    return "<invalid database URL>";
  }
}

/**
 * Opens the store read-only (SQLite) or as the service role (PostgreSQL: the
 * counts are no tenant's rows), runs `read`, and closes it. `what` names the
 * store in the notes: "no <what> at FILE", "<what> NAME unreadable: why".
 */
export async function readCounts<T>(
  ref: CountsStoreRef,
  what: string,
  read: (store: DataStore) => Promise<T>,
): Promise<{ value: T; from: string } | { note: string }> {
  const from = describeStore(ref);
  if (ref.kind === "sqlite" && !fs.existsSync(ref.file)) return { note: `no ${what} at ${from}` };
  let store: DataStore;
  try {
    store = ref.kind === "sqlite" ? sqliteStore(openDatabase(ref.file, { readonly: true })) : await openPgStore({ url: ref.url });
  } catch (err) {
    return { note: `${what} ${from} unreadable: ${err instanceof Error ? err.message : String(err)}` };
  }
  try {
    return { value: await read(store), from };
  } finally {
    await store.close();
  }
}

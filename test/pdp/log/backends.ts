/**
 * The decision log's two stores, for the suites that hold both to one
 * contract (stores.test.ts):
 *
 *   describe.each(LOG_STORES)("$name", (store) => {
 *     const t = useLogStore(store);
 *     const log = await t.open({ worker: true });   // a log on this test's own store
 *     await t.query({ id });                        // queryDecisions / queryDecisionsPg
 *   });
 *
 * SQLite: a new file per test. PostgreSQL: a new database per test, cloned
 * from the migrated template (test/db/contract/backends.ts), logged to as
 * the service role; `owner` runs statements as the tables' owner (to make
 * the store fail: REVOKE, a lock).
 */
import * as path from "node:path";
import pg from "pg";
import { createDecisionLog, openDecisionLog, type DecisionLogOptions, type ManagedDecisionLog } from "../../../pdp/log";
import { queryDecisions, queryDecisionsPg, type DecisionEntry, type DecisionQuery } from "../../../pdp/log/store/query";
import { openForRead } from "../../../pdp/log/store/sqlite-store";
import { clonePgDatabase, type PgUrls } from "../../db/contract/backends";
import { tempDir } from "./fixtures";

type Batching = { flushIntervalMs?: number; batchSize?: number; bufferLimit?: number };
export type OpenOptions = Omit<DecisionLogOptions, "db" | "postgres"> & { batching?: Batching };

export interface OpenStore {
  /** The sink's name in stats().sinks. */
  sink: "sqlite" | "postgres";
  /** A log on this test's store. */
  open(options?: OpenOptions): Promise<ManagedDecisionLog>;
  query(query: DecisionQuery): Promise<DecisionEntry[]>;
  /** Decision ids in the store, read through a connection of their own. */
  storedIds(): Promise<Set<string>>;
  /** log_runs, oldest first. */
  runs(): Promise<Array<{ run_id: string; kind: string; detail: Record<string, unknown> }>>;
  /** PostgreSQL only: this test's database, as the service role and as the owner. */
  urls?: PgUrls;
  /** SQLite only: this test's store file. */
  file?: string;
}

export interface LogStore {
  name: "sqlite" | "postgres";
  create(): Promise<OpenStore & { dispose(): Promise<void> }>;
}

export async function ownerQuery<R extends pg.QueryResultRow>(url: string, sql: string, params: unknown[] = []): Promise<R[]> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return (await c.query<R>(sql, params)).rows;
  } finally {
    await c.end();
  }
}

export const SQLITE_LOG: LogStore = {
  name: "sqlite",
  async create() {
    const file = path.join(tempDir(), "decisions.db");
    const read = <T>(fn: (db: ReturnType<typeof openForRead>) => T): T => {
      const db = openForRead(file);
      try {
        return fn(db);
      } finally {
        db.close();
      }
    };
    return {
      sink: "sqlite",
      file,
      open: async ({ batching, ...options } = {}) => createDecisionLog({ ...options, db: { file, ...batching } }),
      query: async (q) => read((db) => queryDecisions(db, q)),
      storedIds: async () =>
        read((db) => new Set((db.prepare("SELECT decision_id FROM decisions").all() as Array<{ decision_id: string }>).map((r) => r.decision_id))),
      runs: async () =>
        read((db) =>
          (db.prepare("SELECT run_id, kind, detail FROM log_runs ORDER BY seq").all() as Array<{ run_id: string; kind: string; detail: string }>).map((r) => ({
            ...r,
            detail: JSON.parse(r.detail) as Record<string, unknown>,
          })),
        ),
      dispose: async () => undefined,
    };
  },
};

export const POSTGRES_LOG: LogStore = {
  name: "postgres",
  async create() {
    const db = await clonePgDatabase();
    const reader = new pg.Pool({ connectionString: db.urls.app, max: 1 });
    return {
      sink: "postgres",
      urls: db.urls,
      open: ({ batching, ...options } = {}) => openDecisionLog({ ...options, postgres: { url: db.urls.app, ...batching } }),
      query: (q) => queryDecisionsPg(reader, q),
      storedIds: async () => new Set((await reader.query<{ decision_id: string }>("SELECT decision_id FROM decisions")).rows.map((r) => r.decision_id)),
      runs: async () => (await reader.query("SELECT run_id, kind, detail FROM log_runs ORDER BY seq")).rows,
      async dispose() {
        await reader.end();
        await db.drop();
      },
    };
  },
};

export const LOG_STORES: LogStore[] = [SQLITE_LOG, POSTGRES_LOG];

/** A fresh store before each test, disposed after it; read its fields inside tests. */
export function useLogStore(store: LogStore): OpenStore {
  const current = {} as OpenStore & { dispose(): Promise<void> };
  beforeEach(async () => Object.assign(current, await store.create()));
  afterEach(() => current.dispose());
  return current;
}

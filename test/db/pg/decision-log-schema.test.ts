/**
 * The decision log's tables on PostgreSQL (migration 8) are append-only:
 * the service role may INSERT and SELECT, and is refused UPDATE, DELETE and
 * TRUNCATE by its privileges; the owner, who holds every privilege, is
 * refused by the triggers. Nothing a refused statement tried is changed.
 */
import pg from "pg";
import { clonePgDatabase, type PgUrls } from "../contract/backends";

let db: { urls: PgUrls; drop(): Promise<void> };
beforeAll(async () => {
  db = await clonePgDatabase();
});
afterAll(async () => {
  await db?.drop();
});

async function as<T>(url: string, fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end();
  }
}

const TS = "2026-11-27T10:00:00.123456789Z";
const ROWS: Record<string, { insert: string; params: unknown[]; update: string }> = {
  decisions: {
    insert:
      "INSERT INTO decisions (decision_id, timestamp, path, actor_id, allowed, status, reason, revision, run_id, event) VALUES ($1, $2, 'portcullis/decision', 'u_alice', 0, 403, 'role_required', 'r1', 'run-1', '{\"decision_id\":\"d\"}')",
    params: ["d-1", TS],
    update: "UPDATE decisions SET allowed = 1",
  },
  outcomes: {
    insert:
      "INSERT INTO outcomes (decision_id, timestamp, method, http_path, actor_id, status, aborted) VALUES ($1, $2, 'GET', '/invoices/x', 'u_alice', 403, 0)",
    params: ["d-1", TS],
    update: "UPDATE outcomes SET status = 200",
  },
  log_runs: {
    insert: "INSERT INTO log_runs (run_id, kind, at, detail) VALUES ($1, 'start', $2, '{}')",
    params: ["run-1", TS],
    update: "UPDATE log_runs SET kind = 'clean_stop'",
  },
};

describe.each(Object.keys(ROWS))("%s", (table) => {
  const row = ROWS[table];

  test("the service role may insert and read", async () => {
    await as(db.urls.app, async (c) => {
      await c.query(row.insert, row.params);
      expect((await c.query(`SELECT count(*)::int AS n FROM ${table}`)).rows[0].n).toBeGreaterThanOrEqual(1);
    });
  });

  test("the service role is refused UPDATE, DELETE and TRUNCATE (no privilege), and the rows stay", async () => {
    await as(db.urls.app, async (c) => {
      const before = (await c.query(`SELECT * FROM ${table} ORDER BY seq`)).rows;
      expect(before.length).toBeGreaterThanOrEqual(1);
      for (const sql of [row.update, `DELETE FROM ${table}`, `TRUNCATE ${table}`]) {
        await expect(c.query(sql)).rejects.toMatchObject({ code: "42501", message: expect.stringMatching(/permission denied/) });
      }
      expect((await c.query(`SELECT * FROM ${table} ORDER BY seq`)).rows).toEqual(before);
    });
  });

  test("the owner is refused too, by the append-only triggers", async () => {
    await as(db.urls.owner, async (c) => {
      const before = (await c.query(`SELECT * FROM ${table} ORDER BY seq`)).rows;
      for (const sql of [row.update, `DELETE FROM ${table}`, `TRUNCATE ${table}`]) {
        await expect(c.query(sql)).rejects.toMatchObject({ code: "42501", message: expect.stringMatching(/append-only/) });
      }
      expect((await c.query(`SELECT * FROM ${table} ORDER BY seq`)).rows).toEqual(before);
    });
  });
});

test("a repeated decision id keeps the first event (ON CONFLICT DO NOTHING needs only INSERT)", async () => {
  await as(db.urls.app, async (c) => {
    const again = await c.query(
      "INSERT INTO decisions (decision_id, timestamp, allowed, run_id, event) VALUES ('d-1', $1, 1, 'run-2', '{\"x\":1}') ON CONFLICT (decision_id) DO NOTHING",
      [TS],
    );
    expect(again.rowCount).toBe(0);
    expect((await c.query("SELECT allowed, run_id FROM decisions WHERE decision_id = 'd-1'")).rows).toEqual([{ allowed: 0, run_id: "run-1" }]);
  });
});

test("a timestamp that would not sort as time is refused", async () => {
  await as(db.urls.app, async (c) => {
    await expect(
      c.query("INSERT INTO decisions (decision_id, timestamp, allowed, run_id, event) VALUES ('d-2', '2026-11-27 10:00', 1, 'r', '{}')"),
    ).rejects.toMatchObject({ code: "23514" });
  });
});

/**
 * The second wall (issue 23): PostgreSQL row-level security holds even when
 * a repository query forgets its tenant filter, the tenant lives only as long
 * as its transaction (a pooled connection carries none into its next use),
 * the service role is held by privileges as well as policies, and a service
 * that would connect as a role RLS cannot hold is refused at open.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import pg from "pg";
import { createPool, openPgStore, PgStoreError } from "../../../db/pg";
import { poolSession } from "../../../db/pg/session";
import { clonePgDatabase, type PgUrls } from "../contract/backends";

let db: { urls: PgUrls; drop(): Promise<void> };
let pool: pg.Pool;
beforeAll(async () => {
  db = await clonePgDatabase();
  // ONE connection: every use below reuses the same server session.
  pool = createPool({ url: db.urls.app, max: 1 });
});
afterAll(async () => {
  await pool?.end();
  await db?.drop();
});

async function asOwner<T>(fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const c = new pg.Client({ connectionString: db.urls.owner });
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end();
  }
}

describe("a query that forgot its tenant filter", () => {
  test("still reads only the transaction's tenant", async () => {
    const session = poolSession(pool);
    // No WHERE tenant_id at all: the kind of bug the policy is there for.
    const acme = await session.scoped<{ id: string; tenant_id: string }>("t_acme", "SELECT id, tenant_id FROM invoices ORDER BY id", []);
    expect(acme.rows.length).toBe(8);
    expect(new Set(acme.rows.map((r) => r.tenant_id))).toEqual(new Set(["t_acme"]));
    const users = await session.scoped<{ tenant_id: string; internal_notes: string }>("t_globex", "SELECT tenant_id, internal_notes FROM users", []);
    expect(users.rows.map((r) => r.tenant_id)).toEqual(["t_globex", "t_globex", "t_globex", "t_globex"]);
    // Even asking for another tenant's id by name returns nothing.
    expect((await session.scoped("t_acme", "SELECT * FROM invoices WHERE id = $1", ["inv_dave_1"])).rows).toEqual([]);
  });

  test("updates only the transaction's tenant, and cannot write a row into another tenant", async () => {
    const session = poolSession(pool);
    const updated = await session.scoped("t_acme", "UPDATE invoices SET status = 'refunded'", []);
    expect(updated.rowCount).toBe(8);
    const globex = await session.scoped<{ status: string }>("t_globex", "SELECT status FROM invoices WHERE id = 'inv_dave_1'", []);
    expect(globex.rows[0].status).toBe("pending");
    await expect(
      session.scoped(
        "t_acme",
        "INSERT INTO users (id, tenant_id, email, display_name, role) VALUES ('u_x', 't_globex', 'x@globex.example', 'x', 'member')",
        [],
      ),
    ).rejects.toMatchObject({ code: "42501" }); // new row violates row-level security policy
    await expect(session.scoped("t_acme", "UPDATE users SET status = 'banned' WHERE id = 'u_alice' RETURNING id", [])).resolves.toMatchObject({ rowCount: 1 });
  });

  test("without a tenant, the service role sees no row of any tenant table", async () => {
    for (const table of ["users", "invoices", "export_jobs"]) {
      const { rows } = await pool.query<{ n: number }>(`SELECT count(*) AS n FROM ${table}`);
      expect({ table, n: rows[0].n }).toEqual({ table, n: 0 });
    }
    expect((await pool.query("UPDATE invoices SET status = 'draft'")).rowCount).toBe(0);
  });

  test("the owner is held too (FORCE ROW LEVEL SECURITY)", async () => {
    const n = await asOwner(async (c) => (await c.query<{ n: string }>("SELECT count(*) AS n FROM invoices")).rows[0].n);
    expect(Number(n)).toBe(0);
  });
});

describe("the tenant is per transaction, never per session", () => {
  test("a pooled connection reused after a transaction carries no tenant", async () => {
    const session = poolSession(pool);
    const first = await session.scoped<{ pid: number; tenant: string }>(
      "t_acme",
      "SELECT pg_backend_pid() AS pid, current_setting('portcullis.tenant', true) AS tenant",
      [],
    );
    expect(first.rows[0].tenant).toBe("t_acme");
    const next = await pool.query<{ pid: number; tenant: string | null; n: number }>(
      "SELECT pg_backend_pid() AS pid, current_setting('portcullis.tenant', true) AS tenant, (SELECT count(*) FROM invoices) AS n",
    );
    expect(next.rows[0].pid).toBe(first.rows[0].pid); // the very same server session
    expect(next.rows[0].tenant ?? "").toBe("");
    expect(next.rows[0].n).toBe(0);
  });

  test("also after a transaction that failed", async () => {
    const session = poolSession(pool);
    await expect(session.scoped("t_globex", "SELECT 1/0", [])).rejects.toMatchObject({ code: "22012" });
    const next = await pool.query<{ tenant: string | null; n: number }>(
      "SELECT current_setting('portcullis.tenant', true) AS tenant, (SELECT count(*) FROM users) AS n",
    );
    expect(next.rows[0].tenant ?? "").toBe("");
    expect(next.rows[0].n).toBe(0);
  });

  test("a store's transaction leaves nothing behind either", async () => {
    const store = await openPgStore({ pool });
    await store.transaction(async (tx) => {
      await tx.invoices.getScoped("inv_dave_1", { tenant_id: "t_globex" });
      await tx.users.getScoped("u_alice", { tenant_id: "t_acme" });
    });
    await store.close();
    const next = await pool.query<{ tenant: string | null; n: number }>(
      "SELECT current_setting('portcullis.tenant', true) AS tenant, (SELECT count(*) FROM invoices) AS n",
    );
    expect(next.rows[0].tenant ?? "").toBe("");
    expect(next.rows[0].n).toBe(0);
  });

  test("the repositories set the tenant only with set_config(..., true), in one place", () => {
    const dir = path.resolve(__dirname, "../../../db/pg");
    const calls = fs
      .readdirSync(dir)
      .flatMap((f) =>
        [
          ...fs
            .readFileSync(path.join(dir, f), "utf8")
            .matchAll(/set_config\(\s*'portcullis\.tenant'[^)]*\)|\bSET\s+(?:LOCAL\s+|SESSION\s+)?portcullis\.tenant\b/gi),
        ].map((m) => `${f}: ${m[0]}`),
      );
    expect(calls.length).toBeGreaterThan(0);
    for (const call of calls) expect(call).toMatch(/set_config\('portcullis\.tenant', (\$1|''), true\)/);
  });
});

describe("privileges: the service role may do what the repositories do, nothing more", () => {
  test.each([
    ["DELETE FROM invoices", "42501"],
    ["UPDATE users SET role = 'admin'", "42501"],
    ["UPDATE users SET tenant_id = 't_globex'", "42501"],
    ["UPDATE invoices SET amount_cents = 0", "42501"],
    ["UPDATE security_events SET kind = 'x'", "42501"],
    ["DELETE FROM security_events", "42501"],
    ["TRUNCATE invoices", "42501"],
    ["ALTER TABLE invoices DISABLE ROW LEVEL SECURITY", "42501"],
    ["CREATE TABLE evil (id int)", "42501"],
  ])("%s is refused (%s)", async (sql, code) => {
    await expect(poolSession(pool).scoped("t_acme", sql, [])).rejects.toMatchObject({ code });
  });

  test("security events are append-only for the owner as well", async () => {
    await pool.query("INSERT INTO security_events (at, kind, actor_id, route_id, detail) VALUES (now(), 'k', 'a', 'r', '{}')");
    await asOwner(async (c) => {
      await expect(c.query("UPDATE security_events SET kind = 'x'")).rejects.toThrow(/append-only: UPDATE refused/);
      await expect(c.query("DELETE FROM security_events")).rejects.toThrow(/append-only: DELETE refused/);
      await expect(c.query("TRUNCATE security_events")).rejects.toThrow(/append-only: TRUNCATE refused/);
    });
  });

  test("the cross-tenant lookups return their few columns only, and only to the service role", async () => {
    const { rows } = await pool.query("SELECT * FROM portcullis_find_identity('u_dave')");
    expect(rows).toEqual([{ id: "u_dave", tenant_id: "t_globex", role: "member", status: "active" }]);
    expect((await pool.query("SELECT portcullis_invoice_tenant('inv_dave_1') AS t")).rows[0].t).toBe("t_globex");
    // The export runners' poll: tenant ids only (one column), across tenants, with no tenant set.
    await poolSession(pool).scoped(
      "t_globex",
      "INSERT INTO export_jobs (id, tenant_id, requested_by, format, read_fields, scope) VALUES ($1, $2, $3, 'csv', '[]', $4)",
      ["exp_rls", "t_globex", "u_erin", JSON.stringify({ tenant_id: "t_globex" })],
    );
    const claimable = await pool.query("SELECT * FROM portcullis_export_claimable_tenants()");
    expect(claimable.fields.map((f) => f.name)).toEqual(["portcullis_export_claimable_tenants"]);
    expect(claimable.rows).toEqual([{ portcullis_export_claimable_tenants: "t_globex" }]);
  });
});

describe("opening a store refuses a role RLS would not hold, and a stale schema", () => {
  test("the owner's login is refused", async () => {
    await expect(openPgStore({ url: db.urls.owner })).rejects.toMatchObject({ name: "PgStoreError", code: "role_bypasses_rls" });
  });

  test("a database at another schema version is refused", async () => {
    const empty = `portcullis_empty_${process.pid}`;
    await asOwner((c) => c.query(`CREATE DATABASE ${empty}`));
    try {
      const url = new URL(db.urls.app);
      url.pathname = "/" + empty;
      const err = await openPgStore({ url: url.toString() }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(PgStoreError);
      expect(err).toMatchObject({ code: "schema_version_mismatch" });
    } finally {
      await asOwner((c) => c.query(`DROP DATABASE ${empty} WITH (FORCE)`));
    }
  });
});

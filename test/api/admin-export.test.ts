/**
 * Export jobs end to end (real bundle, real JWTs, a real SQLite file): an
 * admin starts a job and polls it until done; the result holds exactly the
 * invoice fields the policy lets that admin read, of her tenant only; CSV is
 * quoted and guarded against formula injection; members, support staff,
 * other tenants and bad bodies get nothing and store nothing; a job whose
 * runner died (its lease expired) is taken over at start, one another live
 * instance runs is not; the row ceiling fails a job without a partial
 * result. Also: the internal report counts every invoice, not one page.
 */
import * as path from "node:path";
import Database from "better-sqlite3";
import request from "supertest";
import { expectProblem, startHarness, type Harness } from "./harness";
import { countInvoices, insertInvoices, manyInvoices } from "../db/insert-invoices";

const ACME = { tenant_id: "t_acme" };
const JOB_FIELDS = ["createdAt", "error", "finishedAt", "format", "id", "result", "rowCount", "startedAt", "status"];
/** invoice.admin's fields that the invoice view has (rego/portcullis/fields/data.json). */
const ADMIN_INVOICE_FIELDS = ["amount_cents", "created_at", "currency", "id", "number", "owner_id", "status"];

const dbFile = (h: Harness) => path.join(h.dir, "portcullis.db");

function jobCount(h: Harness): number {
  const raw = new Database(dbFile(h), { readonly: true });
  try {
    return (raw.prepare("SELECT COUNT(*) AS n FROM export_jobs").get() as { n: number }).n;
  } finally {
    raw.close();
  }
}

function tenantInvoiceIds(h: Harness, tenant: string): string[] {
  const raw = new Database(dbFile(h), { readonly: true });
  try {
    return (raw.prepare("SELECT id FROM invoices WHERE tenant_id = ? ORDER BY id").all(tenant) as Array<{ id: string }>).map((r) => r.id);
  } finally {
    raw.close();
  }
}

async function startJob(h: Harness, user: string, body: unknown) {
  return request(h.app)
    .post("/api/admin/export")
    .set(await h.auth(user))
    .send(body as object);
}

/** Polls the job as `user` until it is done or failed (the runner works between requests). */
async function finished(h: Harness, user: string, location: string) {
  for (let i = 0; i < 250; i++) {
    const res = await request(h.app)
      .get(location)
      .set(await h.auth(user));
    expect(res.status).toBe(200);
    if (res.body.status === "done" || res.body.status === "failed") return res;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`${location} did not finish`);
}

/** A minimal RFC 4180 reader, to check the CSV round-trips to the exported values. */
function parseCsv(text: string): string[][] {
  const records: string[][] = [];
  let record: string[] = [];
  let field = "";
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ",") {
      record.push(field);
      field = "";
    } else if (c === "\r" && text[i + 1] === "\n") {
      record.push(field);
      records.push(record);
      record = [];
      field = "";
      i++;
    } else field += c;
  }
  expect(field === "" && record.length === 0).toBe(true); // every record ended with CRLF
  return records;
}

describe("export jobs", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => h?.close());

  test("an admin starts a json export (202 + Location) and polls it until done: her tenant's rows, exactly her invoice fields", async () => {
    const started = await startJob(h, "u_carol", { format: "json" });
    expect(started.status).toBe(202);
    expect(Object.keys(started.body).sort()).toEqual(["createdAt", "format", "id", "status"]);
    expect(started.body).toMatchObject({ status: "queued", format: "json" });
    expect(started.headers.location).toBe(`/api/admin/export/${started.body.id}`);
    expect(JSON.stringify(started.body)).not.toMatch(/tenant|requested|scope|read_fields|t_acme|u_carol/);

    const done = await finished(h, "u_carol", started.headers.location);
    expect(Object.keys(done.body).sort()).toEqual(JOB_FIELDS);
    const acme = tenantInvoiceIds(h, "t_acme");
    expect(done.body).toMatchObject({ id: started.body.id, status: "done", format: "json", rowCount: acme.length, error: null });
    const rows = done.body.result as Array<Record<string, unknown>>;
    expect(rows.map((r) => r.id).sort()).toEqual(acme);
    for (const row of rows) expect(Object.keys(row).sort()).toEqual(ADMIN_INVOICE_FIELDS);
    const text = JSON.stringify(done.body);
    expect(text).not.toMatch(/SECRET|internal_notes|tenant_id/);
    for (const id of tenantInvoiceIds(h, "t_globex")) expect(text).not.toContain(id);
    // The same rows and fields as the on-the-spot export the job's row decision stands for.
    const live = await request(h.app)
      .get("/invoices/export")
      .set(await h.auth("u_carol"));
    const byId = (a: Array<Record<string, unknown>>) => [...a].sort((x, y) => String(x.id).localeCompare(String(y.id)));
    expect(byId(rows)).toEqual(byId(live.body.invoices));
  });

  test("csv: RFC 4180 quoting and the formula-injection guard", async () => {
    const numbers = ['=HYPERLINK("http://evil.example","x")', "+SUM(1,2)", "-2+3", "@cmd", "\tTAB", "\rCR", "Comma, Inc.", 'Quote "q"', "two\nlines"];
    insertInvoices(
      dbFile(h),
      numbers.map((number, n) => ({ id: `inv_csv_${n}`, tenant_id: "t_acme", owner_id: "u_bob", number })),
    );
    const started = await startJob(h, "u_heidi", { format: "csv" });
    const done = await finished(h, "u_heidi", started.headers.location);
    expect(done.body).toMatchObject({ status: "done", format: "csv", rowCount: countInvoices(dbFile(h), "t_acme") });
    const csv = done.body.result as string;
    expect(typeof csv).toBe("string");
    expect(csv.startsWith("id,number,status,amount_cents,currency,owner_id,created_at\r\n")).toBe(true);
    // Exact cells: the apostrophe comes first, then quoting when the text needs it.
    for (const cell of [
      '"\'=HYPERLINK(""http://evil.example"",""x"")"',
      '"\'+SUM(1,2)"',
      ",'-2+3,",
      ",'@cmd,",
      ",'\tTAB,",
      ',"\'\rCR",',
      ',"Comma, Inc.",',
      ',"Quote ""q""",',
      ',"two\nlines",',
    ]) {
      expect(csv).toContain(cell);
    }
    const [header, ...records] = parseCsv(csv);
    expect(records).toHaveLength(done.body.rowCount);
    const number = (id: string) => records.find((r) => r[header.indexOf("id")] === id)?.[header.indexOf("number")];
    numbers.forEach((n, i) => expect(number(`inv_csv_${i}`)).toBe(/^[=+\-@\t\r]/.test(n) ? `'${n}` : n));
    expect(number("inv_alice_1")).toBe("ACME-2026-0001");
    expect(csv).not.toMatch(/SECRET|t_globex|inv_dave/);
  });

  test("a member or a support agent gets 403 and no job is stored; neither may read a job", async () => {
    const job = (await startJob(h, "u_carol", { format: "json" })).body.id as string;
    const before = jobCount(h);
    for (const user of ["u_alice", "u_frank"]) {
      const res = await startJob(h, user, { format: "csv" });
      expectProblem(res, 403, "forbidden");
      expect(res.body.reason).toBe("role_required");
      expect(res.headers.location).toBeUndefined();
      expectProblem(
        await request(h.app)
          .get(`/api/admin/export/${job}`)
          .set(await h.auth(user)),
        403,
        "forbidden",
      );
    }
    expectProblem(await request(h.app).get(`/api/admin/export/${job}`), 401, "authentication_required");
    expect(jobCount(h)).toBe(before);
  });

  test("another tenant's admin gets the same 404 for a job as for an unknown id", async () => {
    const started = await startJob(h, "u_carol", { format: "json" });
    await finished(h, "u_carol", started.headers.location);
    const erin = await h.auth("u_erin");
    const foreign = await request(h.app).get(started.headers.location).set(erin);
    const unknown = await request(h.app).get("/api/admin/export/exp_00000000-0000-0000-0000-000000000000").set(erin);
    expectProblem(foreign, 404, "not_found");
    expectProblem(unknown, 404, "not_found");
    const { decision_id: _a, ...foreignBody } = foreign.body;
    const { decision_id: _b, ...unknownBody } = unknown.body;
    expect(foreignBody).toEqual(unknownBody);
    expect(JSON.stringify(foreign.body)).not.toMatch(/inv_|result|t_acme/);
    // The probe for another tenant's job is on the security record; the unknown id is not cross-tenant.
    const jobId = started.headers.location.split("/").pop();
    const events = await h.events({ kind: "cross_tenant_id", actorId: "u_erin" });
    expect(events.map((e) => [e.detail.resource_type, e.detail.resource_id, e.detail.resource_tenant])).toEqual([["export", jobId, "t_acme"]]);
  });

  test("a bad format or body is 400 problem+json (403 for a field nobody may write) and stores nothing", async () => {
    const before = jobCount(h);
    for (const body of [{ format: "xml" }, { format: 1 }, { format: "" }]) expectProblem(await startJob(h, "u_carol", body), 400, "invalid_body");
    expectProblem(await startJob(h, "u_carol", { format: "csv", tenant_id: "t_globex" }), 403, "field_not_writable");
    expect(jobCount(h)).toBe(before);
  });

  test("the internal report totals every invoice of the tenant, well past 100", async () => {
    insertInvoices(dbFile(h), manyInvoices("t_acme", "u_alice", 140));
    const raw = new Database(dbFile(h), { readonly: true });
    const expected = raw
      .prepare("SELECT status, COUNT(*) AS count, SUM(amount_cents) AS amount_cents FROM invoices WHERE tenant_id = 't_acme' GROUP BY status ORDER BY status")
      .all();
    raw.close();
    for (const method of ["get", "post"] as const) {
      const res = await request(h.app)
        [method]("/api/internal/reports/export")
        .set(await h.auth("u_carol"));
      expect(res.status).toBe(200);
      expect(res.body.rows).toEqual(expected);
      expect(res.body.rows.reduce((n: number, r: { count: number }) => n + r.count, 0)).toBe(countInvoices(dbFile(h), "t_acme"));
    }
    const globex = await request(h.app)
      .get("/api/internal/reports/export")
      .set(await h.auth("u_erin"));
    expect(globex.body.rows.reduce((n: number, r: { count: number }) => n + r.count, 0)).toBe(countInvoices(dbFile(h), "t_globex"));
  });

  test("an export of more than one page holds every row once", async () => {
    expect(countInvoices(dbFile(h), "t_acme")).toBeGreaterThan(100); // the previous test's rows
    const started = await startJob(h, "u_carol", { format: "json" });
    const done = await finished(h, "u_carol", started.headers.location);
    expect((done.body.result as Array<{ id: string }>).map((r) => r.id).sort()).toEqual(tenantInvoiceIds(h, "t_acme"));
  });
});

describe("start-up takes over a job whose runner died (lease expired), never one a live instance runs", () => {
  let h: Harness;
  let deadJob: string;
  let liveJob: string;
  beforeAll(async () => {
    h = await startHarness({
      async beforeStart(db) {
        const create = async () =>
          (await db.exportJobs.createScoped(ACME, { requestedBy: "u_carol", format: "json", readFields: ["id", "number"], rowScope: ACME })).id;
        // Another instance, alive, is running this one right now (its lease holds for ten minutes).
        liveJob = await create();
        expect(await db.exportJobs.claimNextScoped(ACME, { runner: "live-instance", ms: 600_000 })).toMatchObject({ id: liveJob, status: "running" });
        // A previous process accepted this job with these fields, claimed it, and died: its lease ran out.
        deadJob = await create();
        expect(await db.exportJobs.claimNextScoped(ACME, { runner: "dead-instance", ms: 0 })).toMatchObject({ id: deadJob, status: "running" });
      },
    });
  });
  afterAll(async () => h?.close());

  test("the dead runner's job runs again from scratch with the fields it was accepted with, by this instance's runner", async () => {
    const done = await finished(h, "u_carol", `/api/admin/export/${deadJob}`);
    expect(done.body).toMatchObject({ status: "done", rowCount: tenantInvoiceIds(h, "t_acme").length, error: null });
    for (const row of done.body.result as Array<Record<string, unknown>>) expect(Object.keys(row)).toEqual(["id", "number"]);
    expect(h.logs).toContainEqual(expect.objectContaining({ event: "export.job", job_id: deadJob, status: "done", runner: h.exportRunner.id }));
  });

  test("the live instance's job is left to it: still running, no second run here", async () => {
    await h.exportRunner.idle();
    const res = await request(h.app)
      .get(`/api/admin/export/${liveJob}`)
      .set(await h.auth("u_carol"));
    expect(res.body).toMatchObject({ status: "running", result: null, finishedAt: null });
    expect(h.logs.filter((l) => l.job_id === liveJob)).toEqual([]);
    expect(await h.db.exportJobs.getScoped(liveJob, ACME)).toMatchObject({ status: "running", lease_owner: "live-instance" });
  });
});

describe("the row ceiling", () => {
  const CEILING = 30;
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ exportMaxRows: CEILING });
  });
  afterAll(async () => h?.close());

  test("exactly the ceiling is exported; one row more fails with row_limit_exceeded and stores no result", async () => {
    const file = dbFile(h);
    insertInvoices(file, manyInvoices("t_globex", "u_dave", CEILING - countInvoices(file, "t_globex")));
    const full = await startJob(h, "u_erin", { format: "csv" });
    expect(await finished(h, "u_erin", full.headers.location).then((r) => r.body)).toMatchObject({ status: "done", rowCount: CEILING });

    insertInvoices(file, [{ id: "inv_one_too_many", tenant_id: "t_globex", owner_id: "u_dave", number: "GLX-OVER" }]);
    const over = await startJob(h, "u_erin", { format: "csv" });
    const failed = await finished(h, "u_erin", over.headers.location);
    expect(failed.body).toMatchObject({ status: "failed", error: "row_limit_exceeded", result: null, rowCount: null });
    expect(failed.body.finishedAt).toEqual(expect.any(String));
    const raw = new Database(file, { readonly: true });
    expect(raw.prepare("SELECT result, row_count FROM export_jobs WHERE id = ?").get(over.body.id)).toEqual({ result: null, row_count: null });
    raw.close();
  });
});

/**
 * POST /api/internal/reports/export {"format": "csv"} honours the format:
 * text/csv (RFC 4180, CRLF records, the formula-injection guard of
 * api/exports/csv.ts) as a download, the same numbers as the JSON report;
 * a client whose Accept refuses text/csv gets 406 not_acceptable; the
 * policy still decides first (members 403, anonymous 401, never CSV).
 */
import Ajv2020 from "ajv/dist/2020";
import addFormats from "ajv-formats";
import request from "supertest";
import { fromCsv } from "../../api/exports/csv";
import { generateOpenApi } from "../../api/openapi";
import { ROUTES } from "../../api/registry/routes";
import { expectProblem, startHarness, type Harness } from "./harness";

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => h?.close());

const PATH = "/api/internal/reports/export";

test("format csv answers text/csv with the JSON report's rows, as a download", async () => {
  const carol = await h.auth("u_carol");
  const json = await request(h.app).post(PATH).set(carol).send({ format: "json" });
  expect(json.status).toBe(200);
  const res = await request(h.app).post(PATH).set(carol).send({ format: "csv" });
  expect(res.status).toBe(200);
  expect(res.headers["content-type"]).toMatch(/^text\/csv/);
  expect(res.headers["content-disposition"]).toMatch(/^attachment; filename="invoices-by-status-\d{4}-\d{2}-\d{2}\.csv"$/);
  expect(res.headers["decision-id"]).toEqual(expect.any(String));
  const text = res.text;
  expect(text.startsWith("status,count,amount_cents\r\n")).toBe(true);
  expect(text.endsWith("\r\n")).toBe(true);
  const table = fromCsv(text);
  expect(table.rows).toEqual(
    (json.body.rows as Array<{ status: string; count: number; amount_cents: number }>).map((r) => ({
      status: r.status,
      count: String(r.count),
      amount_cents: String(r.amount_cents),
    })),
  );
  expect(table.rows.length).toBeGreaterThan(1);
});

test("an Accept header that refuses text/csv is 406 not_acceptable; one that takes it (or none) gets CSV", async () => {
  const carol = await h.auth("u_carol");
  expectProblem(await request(h.app).post(PATH).set(carol).set("Accept", "application/json").send({ format: "csv" }), 406, "not_acceptable");
  for (const accept of ["text/csv", "*/*", "application/json, text/csv;q=0.5"]) {
    const res = await request(h.app).post(PATH).set(carol).set("Accept", accept).send({ format: "csv" });
    expect({ accept, status: res.status, type: res.headers["content-type"] }).toEqual({ accept, status: 200, type: expect.stringMatching(/^text\/csv/) });
  }
});

test("the policy decides before any CSV: anonymous 401, members and support 403, problem+json", async () => {
  expectProblem(await request(h.app).post(PATH).send({ format: "csv" }), 401, "authentication_required");
  expectProblem(
    await request(h.app)
      .post(PATH)
      .set(await h.auth("u_alice"))
      .send({ format: "csv" }),
    403,
    "forbidden",
  );
  expectProblem(
    await request(h.app)
      .post(PATH)
      .set(await h.auth("u_frank"))
      .send({ format: "csv" }),
    403,
    "forbidden",
  );
  expectProblem(
    await request(h.app)
      .post(PATH)
      .set(await h.auth("u_carol"))
      .send({ format: "xlsx" }),
    400,
    "invalid_body",
  );
});

test("the CSV answer and the 406 are what the route's description says", async () => {
  const doc = generateOpenApi(ROUTES, h.deps.versions, Date.now(), { undocumented: true }) as {
    paths: Record<string, Record<string, { responses: Record<string, { content: Record<string, { schema: object }> }> }>>;
    components: { schemas: { Problem: object } };
  };
  const op = doc.paths[PATH].post;
  expect(Object.keys(op.responses["200"].content)).toContain("text/csv");
  const ajv = new Ajv2020({ strict: true, allowUnionTypes: true });
  addFormats(ajv);
  const csv = await request(h.app)
    .post(PATH)
    .set(await h.auth("u_carol"))
    .send({ format: "csv" });
  expect(ajv.validate(op.responses["200"].content["text/csv"].schema, csv.text)).toBe(true);
  const refused = await request(h.app)
    .post(PATH)
    .set(await h.auth("u_carol"))
    .set("Accept", "application/json")
    .send({ format: "csv" });
  const schema = JSON.parse(
    JSON.stringify(op.responses["406"].content["application/problem+json"].schema).replace(
      /\{"\$ref":"#\/components\/schemas\/Problem"\}/g,
      JSON.stringify(doc.components.schemas.Problem),
    ),
  );
  expect(ajv.validate(schema, refused.body)).toBe(true);
});

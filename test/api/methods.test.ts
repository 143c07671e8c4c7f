/**
 * Every method the server accepts is a registry record with its own policy:
 * nothing Express or its router derives on its own is served. Express
 * answers HEAD with a route's GET handler and its router answers OPTIONS
 * with an `Allow` list; both (and every other method no record declares)
 * take the one refusal path of unknown methods: 404 route_not_found,
 * problem+json with a Decision-Id, a log line, the unmatched budget, counted
 * as unmatched traffic, never as a (shadow) route.
 */
import * as http from "node:http";
import express, { type RequestHandler } from "express";
import request from "supertest";
import { acceptedMethods, onlyMethod } from "../../api/middleware/accepted-methods";
import { ROUTES } from "../../api/registry/routes";
import { expectProblem, startHarness, type Harness } from "./harness";

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => h?.close());

/** One concrete path per record path, with the version and ids filled in. */
const concrete = (template: string) => template.replace("{version}", "v2").replace(/\{[a-z_]+\}/g, "inv_alice_1");
const CASES = ROUTES.flatMap((r) => r.paths.map((p) => [r.id, concrete(p)] as const));
/** Methods Node's HTTP parser accepts that no record declares (CONNECT is a tunnel, answered by Node itself). */
const UNDECLARED = http.METHODS.filter((m) => !["GET", "POST", "PATCH", "PUT", "DELETE", "CONNECT"].includes(m));

test.each(CASES)("%s %s: HEAD is refused like an unknown method, on the record", async (_id, path) => {
  h.logs.length = 0;
  const res = await request(h.app)
    .head(path)
    .set(await h.auth("u_carol"));
  expect(res.status).toBe(404);
  expect(res.headers["content-type"]).toMatch(/^application\/problem\+json/);
  expect(res.headers["decision-id"]).toMatch(/^[0-9a-f-]{36}$/);
  expect(res.headers["ratelimit-policy"]).toMatch(/^"diagnostic";/);
  const line = h.logs.find((l) => l.event === "http.request");
  expect(line).toMatchObject({ method: "HEAD", route_id: null, status: 404, problem: "route_not_found", decision_id: res.headers["decision-id"] });
});

test.each(CASES)("%s %s: OPTIONS gets no Allow list from the router, only the refusal", async (_id, path) => {
  const res = await request(h.app).options(path);
  expectProblem(res, 404, "route_not_found");
  expect(res.headers.allow).toBeUndefined();
});

test.each(UNDECLARED)("%s on a GET route is refused the same way", async (method) => {
  const res = await request(h.app)[method.toLowerCase() as "get"]("/health");
  expect(res.status).toBe(404);
  expect(res.headers["decision-id"]).toBeTruthy();
  expect(res.headers["content-type"]).toMatch(/^application\/problem\+json/);
});

test("refused methods are counted as unmatched traffic, never under a route's template", async () => {
  await request(h.app)
    .head("/users/me")
    .set(await h.auth("u_alice"));
  await request(h.app).options("/users/me");
  const rows = (await h.db.traffic.summary()).filter((r) => r.method === "HEAD" || r.method === "OPTIONS");
  expect(rows.length).toBeGreaterThan(0);
  for (const r of rows) expect({ template: r.template, status: r.status }).toEqual({ template: "(unmatched)", status: 404 });
});

test("the methods the records declare still answer (the refusal is per method, not per path)", async () => {
  expect((await request(h.app).get("/health")).status).toBe(200);
  expect(
    (
      await request(h.app)
        .get("/users/me")
        .set(await h.auth("u_alice"))
    ).status,
  ).toBe(200);
});

test("even when a record declares HEAD somewhere, a GET route elsewhere does not answer it", async () => {
  // HEAD is not an HttpMethod of the registry today: the records are cast, as a future registry might declare it.
  const records = [{ method: "GET" }, { method: "HEAD" }] as unknown as typeof ROUTES;
  const app = express();
  const refuse: RequestHandler = (_req, res) => void res.status(404).end();
  app.use(acceptedMethods(records, refuse));
  app.get(
    "/a",
    onlyMethod("GET", (_req, res) => void res.status(200).end()),
  );
  app.head(
    "/b",
    onlyMethod("HEAD" as never, (_req, res) => void res.status(204).end()),
  );
  app.use(refuse);
  expect((await request(app).get("/a")).status).toBe(200);
  expect((await request(app).head("/b")).status).toBe(204);
  expect((await request(app).head("/a")).status).toBe(404);
  expect((await request(app).options("/a")).status).toBe(404);
});

/**
 * Versions retire by themselves: the clock, not an edit of versions.json,
 * decides when a served version stops being served. Before its sunset a
 * deprecated version answers with Deprecation, Sunset and a Link to its
 * successor; from the sunset on it is 410 with the same Link and the
 * successor in the problem. /openapi.json offers only what a new client may
 * choose (no Zombie, nothing retired) and marks deprecated versions.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import request from "supertest";
import { loadVersions, VERSIONS_FILE } from "../../api/versions";
import { expectProblem, startHarness, type Harness } from "./harness";

const catalog = loadVersions();
const record = (name: string) => catalog.versions.find((v) => v.name === name)!;
const V1_SUNSET = Date.parse(record("v1").sunset!);
const OLD_SUNSET = Date.parse(record("old").sunset!);

let h: Harness;
let now = Date.parse("2026-11-01T00:00:00Z");
beforeAll(async () => {
  h = await startHarness({ now: () => now });
});
afterAll(async () => h?.close());

test("before the sunset: served, with Deprecation, Sunset and a Link to the successor", async () => {
  now = V1_SUNSET - 1000;
  const res = await request(h.app)
    .get("/api/v1/users/me")
    .set(await h.auth("u_alice"));
  expect(res.status).toBe(200);
  expect(res.headers.deprecation).toBe(`@${Math.floor(Date.parse(record("v1").deprecated_at!) / 1000)}`);
  expect(res.headers.sunset).toBe(new Date(V1_SUNSET).toUTCString());
  expect(res.headers.link).toBe('</api/v2/users/me>; rel="successor-version"');
  // A current version has none of them.
  const current = await request(h.app)
    .get("/api/v2/users/me")
    .set(await h.auth("u_alice"));
  expect([current.headers.deprecation, current.headers.sunset, current.headers.link]).toEqual([undefined, undefined, undefined]);
});

test("from the sunset on: 410 by every way of naming it, with the successor, and nothing runs", async () => {
  now = V1_SUNSET;
  const alice = await h.auth("u_alice");
  const byPath = await request(h.app).get("/api/v1/users/me").set(alice);
  expectProblem(byPath, 410, "version_retired");
  expect(byPath.headers.link).toBe('</api/v2/users/me>; rel="successor-version"');
  expect(byPath.body).toMatchObject({ version: "v1", successor: "v2", sunset: record("v1").sunset });
  expect(byPath.body.detail).toMatch(/v1 was retired on 2027-03-31; use v2/);
  const byHeader = await request(h.app).get("/users/me").set(alice).set("Api-Version", "v1");
  expectProblem(byHeader, 410, "version_retired");
  expect(byHeader.headers.link).toBe('</users/me>; rel="successor-version"');
  expectProblem(await request(h.app).get("/users/me").set(alice).set("Accept", "application/vnd.portcullis.v1+json"), 410, "version_retired");
  // A write through the retired version changes nothing.
  expectProblem(await request(h.app).patch("/api/v1/users/me").set(alice).send({ displayName: "Gone" }), 410, "version_retired");
  expect((await h.db.users.getScoped("u_alice", { tenant_id: "t_acme" }))?.display_name).not.toBe("Gone");
  // The successor still answers.
  expect((await request(h.app).get("/api/v2/users/me").set(alice)).status).toBe(200);
});

test("a path that is not a plain URI path cannot break the Link header", async () => {
  now = V1_SUNSET;
  const res = await request(h.app)
    .get('/invoices/a"b>c')
    .set("Api-Version", "v1")
    .set(await h.auth("u_alice"));
  expect(res.status).toBe(410);
  expect(res.headers.link).toBe('</invoices/a%22b%3Ec>; rel="successor-version"');
});

type VersionSchema = { enum: string[]; oneOf: unknown[] };
type OpenApiDoc = { paths: Record<string, { get: { parameters: Array<{ name: string; schema: VersionSchema }> } }> };
const versionParam = (doc: OpenApiDoc): VersionSchema => {
  const param = doc.paths["/api/{version}/users/me"].get.parameters.find((p) => p.name === "version");
  if (!param) throw new Error("no version parameter in /openapi.json");
  return param.schema;
};

test("/openapi.json offers only published versions and marks the deprecated ones", async () => {
  now = Date.parse("2026-11-01T00:00:00Z");
  const doc = (await request(h.app).get("/openapi.json")).body;
  const schema = versionParam(doc);
  // Zombie (old) and Retired (legacy) are never offered.
  expect([...schema.enum].sort()).toEqual(["beta", "mobile", "partner", "v1", "v2"]);
  expect(schema.oneOf).toContainEqual({ const: "v1", deprecated: true, "x-sunset": record("v1").sunset, "x-successor": "v2" });
  expect(schema.oneOf).toContainEqual({ const: "v2" });
  const header = doc.paths["/users/me"].get.parameters.find((p: { name: string }) => p.name === "Api-Version").schema;
  expect(header).toEqual(schema);
  expect(doc.info["x-api-versions"]).toContainEqual({
    name: "beta",
    deprecated: true,
    deprecatedAt: record("beta").deprecated_at,
    sunset: record("beta").sunset,
    successor: "v2",
  });
  expect(JSON.stringify(doc)).not.toMatch(/"(old|legacy)"/);
});

test("/openapi.json follows the clock: a version past its sunset leaves the document", async () => {
  now = V1_SUNSET + 1;
  const schema = versionParam((await request(h.app).get("/openapi.json")).body);
  expect([...schema.enum].sort()).toEqual(["mobile", "partner", "v2"]);
});

test("a Zombie version past its sunset is refused too", async () => {
  now = OLD_SUNSET - 1;
  expect((await request(h.app).get("/api/old/health")).status).toBe(200);
  now = OLD_SUNSET;
  expectProblem(await request(h.app).get("/api/old/health"), 410, "version_retired");
});

test("versions.json may not name an unknown successor", () => {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "versions-")), "versions.json");
  const raw = JSON.parse(fs.readFileSync(VERSIONS_FILE, "utf8"));
  raw.versions.find((v: { name: string }) => v.name === "v1").successor = "v9";
  fs.writeFileSync(file, JSON.stringify(raw));
  expect(() => loadVersions(file)).toThrow(/unknown successor "v9"/);
});

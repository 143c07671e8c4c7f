/**
 * The inventory's sources, each read by its real parser: Kong YAML (yaml),
 * OpenAPI JSON, GraphQL SDL (graphql), the API's code (the TypeScript
 * compiler API) and the API's JSON request log.
 */
import * as path from "node:path";
import { ROUTES } from "../../api/registry/routes";
import { kongPathToTemplate, parseGateway, readGateway } from "../../inventory/sources/gateway";
import { scanCode, scanSource } from "../../inventory/sources/code";
import { sightingsFromSdl } from "../../inventory/sources/graphql";
import { readArchivedOpenApi, sightingsFromOpenApi } from "../../inventory/sources/openapi";
import { importJsonLog } from "../../inventory/sources/traffic";

const REPO = path.resolve(__dirname, "../..");

describe("gateway (Kong declarative YAML)", () => {
  test("regex paths become templates, prefixes keep a *, missing methods mean every method", () => {
    expect(kongPathToTemplate("~/invoices/(?<invoice_id>[^/]+)/approve$")).toBe("/invoices/{invoice_id}/approve");
    expect(kongPathToTemplate("~/openapi\\.json$")).toBe("/openapi.json");
    expect(kongPathToTemplate("/invoices")).toBe("/invoices*");
    const s = parseGateway(`_format_version: "3.0"\nservices:\n  - name: api\n    routes:\n      - name: any\n        paths: ["~/debug/vars$"]\n`);
    expect(s).toEqual([{ source: "gateway", method: "*", path: "/debug/vars", where: "gateway#api/any" }]);
  });

  test("refuses a file that is not a Kong declarative configuration", () => {
    expect(() => parseGateway("services: []\n")).toThrow(/_format_version/);
    expect(() => parseGateway(`_format_version: "3.0"\nservices:\n  - routes:\n      - paths: ["invoices"]\n`)).toThrow(/neither a prefix/);
  });

  test("the repository's gateway exposes documented paths only (no /metrics, no internal routes)", () => {
    const paths = readGateway(path.join(REPO, "inventory/gateway/kong.yaml")).map((s) => `${s.method} ${s.path}`);
    expect(paths).toContain("GET /api/{version}/users/me");
    expect(paths).toContain("POST /invoices/{invoice_id}/refund");
    expect(paths.some((p) => p.includes("/metrics") || p.includes("/internal/"))).toBe(false);
  });
});

describe("code (TypeScript compiler API)", () => {
  test("finds every (method, path) of the registry, including the ones built by functions and .map", () => {
    const found = new Set(
      scanCode(path.join(REPO, "api"), REPO)
        .filter((s) => !s.direct)
        .map((s) => `${s.method} ${s.path}`),
    );
    for (const r of ROUTES) for (const p of r.paths) expect(found).toContain(`${r.method} ${p}`);
    expect(found).toContain("POST /invoices/{invoice_id}/publish");
    expect(found).toContain("POST /api/internal/reports/export");
  });

  test("finds direct Express registrations with a literal path, and nothing in comments or strings", () => {
    const src = [
      '// app.get("/commented", h);',
      "const text = 'router.post(\"/in-a-string\", h)';",
      'router.get("/debug/vars/:name", (req, res) => res.json({}));',
      "app[method](expressPath(template), ...chain);",
    ].join("\n");
    const s = scanSource(src, "api/planted.ts");
    expect(s.map((x) => [x.method, x.path, x.where, x.direct])).toEqual([["GET", "/debug/vars/{name}", "api/planted.ts:3", true]]);
  });
});

describe("schemas", () => {
  test("GraphQL: Query and Mutation fields, @rest targets, @deprecated, and fields with no route", () => {
    const sdl = `directive @rest(method: String!, path: String!) on FIELD_DEFINITION
      type Query { me: String @rest(method: "GET", path: "/users/me") old: String @rest(method: "GET", path: "/api/v1/users/me") @deprecated(reason: "v1") orphan: Int }
      type Mutation { touch: Int @rest(method: "patch", path: "/profile") }`;
    expect(sightingsFromSdl(sdl, "t.graphql").map((s) => [s.method, s.path, s.deprecated])).toEqual([
      ["GET", "/users/me", false],
      ["GET", "/api/v1/users/me", true],
      ["GRAPHQL", "graphql:Query.orphan", false],
      ["PATCH", "/profile", false],
    ]);
    expect(() => sightingsFromSdl("type Query { me: Missing }", "bad.graphql")).toThrow(/Missing/);
  });

  test("OpenAPI: the server path prefixes operations; query parameters and deprecation are kept", () => {
    const s = readArchivedOpenApi(path.join(REPO, "inventory/schemas"));
    expect(s.find((x) => x.path === "/api/v1/search")?.params).toEqual(["q", "limit"]);
    expect(s.find((x) => x.path === "/api/v1/users/{user_id}/notes")).toMatchObject({ method: "GET", deprecated: true, source: "openapi-archive" });
    expect(() => sightingsFromOpenApi({ paths: {} }, "openapi", "x")).toThrow(/openapi/);
  });
});

test("access log import: the API's JSON lines, mapped to templates, versions and actor classes", () => {
  const lines = [
    { time: "2026-11-01T10:00:00Z", event: "http.request", method: "GET", path: "/api/v1/users/me", version: "v1", actor: "u_alice", status: 200 },
    { time: "2026-11-02T10:00:00Z", event: "http.request", method: "GET", path: "/api/v1/users/me", version: "v1", actor: "u_alice", status: 200 },
    { time: "2026-11-03T10:00:00Z", event: "http.request", method: "GET", path: "/api/v9/health", version: null, actor: "anonymous", status: 404 },
    { time: "2026-11-03T10:00:00Z", event: "http.request", method: "GET", path: "/invoices/export", version: "v2", actor: "u_carol", status: 200 },
    { time: "2026-11-03T11:00:00Z", event: "pdp.bundle_activated" },
  ].map((l) => JSON.stringify(l));
  const t = importJsonLog(
    [...lines, "not json"].join("\n"),
    ["/invoices/{invoice_id}", "/invoices/export", "/api/{version}/users/me", "/api/{version}/health"],
    (id) => (id === "u_carol" ? "admin" : "member"),
  );
  expect(t.observations).toEqual([
    {
      method: "GET",
      template: "/api/{version}/users/me",
      version: "v1",
      status: 200,
      actorClass: "member",
      count: 2,
      lastSeen: "2026-11-02T10:00:00.000Z",
      probe: false,
    },
    {
      method: "GET",
      template: "/api/{version}/health",
      version: "v9",
      status: 404,
      actorClass: "anonymous",
      count: 1,
      lastSeen: "2026-11-03T10:00:00.000Z",
      probe: false,
    },
    {
      method: "GET",
      template: "/invoices/export",
      version: "v2",
      status: 200,
      actorClass: "admin",
      count: 1,
      lastSeen: "2026-11-03T10:00:00.000Z",
      probe: false,
    },
  ]);
  expect(t.notes[0]).toMatch(/2 line\(s\)/);
});

/**
 * Completeness is checked before any request: a registry operation without
 * a matrix entry, or a persona an entry gives no expectation for, is a
 * named MISSING cell; an entry for an operation nobody serves is STALE; a
 * malformed expectation is an error naming its place in the file.
 */
import { ROUTES } from "../../api/registry/routes";
import type { RouteRecord } from "../../api/registry/types";
import { loadVersions } from "../../api/versions";
import { expandMatrix } from "../../matrix/expand";
import { loadMatrix, MatrixFileError, parseMatrix } from "../../matrix/model";
import { operationsFromRegistry } from "../../matrix/registry";
import * as fs from "node:fs";
import YAML from "yaml";

const catalog = loadVersions();

test("the repository's matrix covers the registry exactly", () => {
  const { cells, missing, stale } = expandMatrix(loadMatrix(), operationsFromRegistry(catalog));
  expect(missing).toEqual([]);
  expect(stale).toEqual([]);
  expect(cells.length).toBeGreaterThan(1000);
  expect(new Set(cells.map((c) => c.id)).size).toBe(cells.length);
});

test("a new route without a matrix entry is a missing cell, named for every version and persona", () => {
  const voidRoute: RouteRecord = { ...ROUTES.find((r) => r.id === "invoices.approve")!, id: "invoices.void", paths: ["/invoices/{invoice_id}/void"] };
  const { missing } = expandMatrix(loadMatrix(), operationsFromRegistry(catalog, [...ROUTES, voidRoute]));
  expect(missing).toContain("POST invoices.void v2 /invoices/{invoice_id}/void u_alice: no matrix entry for POST invoices.void");
  expect(missing.filter((m) => m.startsWith("POST invoices.void v1 "))).toHaveLength(loadMatrix().personas.length);
});

test("a persona the entry has no expectation for is a missing cell", () => {
  const raw = YAML.parse(fs.readFileSync(loadMatrix().file, "utf8"), { merge: true }) as { routes: Record<string, { expect: Record<string, unknown> }> };
  delete raw.routes["GET invoices.get"].expect.support;
  const { missing } = expandMatrix(parseMatrix(raw), operationsFromRegistry(catalog));
  expect(missing).toContain("GET invoices.get v2 /invoices/{invoice_id} u_frank same_tenant: no expectation for u_frank (support)");
});

test("an entry for a route the registry does not serve is stale", () => {
  const raw = YAML.parse(fs.readFileSync(loadMatrix().file, "utf8"), { merge: true }) as { routes: Record<string, unknown> };
  raw.routes["DELETE invoices.get"] = raw.routes["GET invoices.get"];
  expect(expandMatrix(parseMatrix(raw), operationsFromRegistry(catalog)).stale).toEqual([
    "DELETE invoices.get: matrix entry for an operation the registry does not serve",
  ]);
});

test("a malformed expectation names its place", () => {
  const raw = YAML.parse(fs.readFileSync(loadMatrix().file, "utf8"), { merge: true }) as {
    routes: Record<string, { expect: Record<string, Record<string, string>> }>;
  };
  raw.routes["GET invoices.get"].expect.member.own = "permit";
  expect(() => parseMatrix(raw, "m.yaml")).toThrow(MatrixFileError);
  expect(() => parseMatrix(raw, "m.yaml")).toThrow(/m\.yaml: routes\.GET invoices\.get\.expect\.member\.own: expectation "permit"/);
});

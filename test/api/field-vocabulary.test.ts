/**
 * One vocabulary for fields: the policy's field data (rego/portcullis/fields
 * and routes data.json) is the one source the API reads. Any drift between
 * it and what the API answers, accepts or guards fails here:
 * - a policy view naming a field the route's public view does not have
 *   (the invoice views once named five such fields), or a public view field
 *   no policy view reads;
 * - a protected field under another spelling than its wire name (`ownerId`
 *   protected while admins read `owner_id`);
 * - a route body accepting fields the policy does not let anyone write, or
 *   the reverse;
 * - the body guard missing a protected or retired name in some spelling;
 * - api/fields.ts computing other read or write sets than the compiled
 *   policy decides.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import request from "supertest";
import { FIELD_DATA, readFieldsByRole, ROUTE_POLICIES, spellingKey, writeFields } from "../../api/fields";
import { ROUTES } from "../../api/registry/routes";
import { WIRE_FIELDS } from "../../api/views";
import { startHarness, type Harness } from "./harness";

const REPO = path.resolve(__dirname, "../..");
/** Read here on its own, so the test does not trust the API's loader. */
const policyFields = JSON.parse(fs.readFileSync(path.join(REPO, "rego/portcullis/fields/data.json"), "utf8")) as typeof FIELD_DATA;

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => h?.close());

test("the API reads the policy's own field data", () => {
  expect(FIELD_DATA).toEqual(policyFields);
});

test("every field a grant reads is a field of the route's public view", () => {
  const phantom: string[] = [];
  for (const route of ROUTES) {
    const wire = WIRE_FIELDS[route.resource];
    expect(wire).toBeDefined();
    for (const [role, fields] of readFieldsByRole(route.id)) {
      for (const f of fields) if (!Object.hasOwn(wire, f)) phantom.push(`${route.id} (${role}): ${f}`);
    }
  }
  expect(phantom).toEqual([]);
});

test("every field of a public view is read by some grant of a route of its resource", () => {
  const read = new Map<string, Set<string>>();
  for (const route of ROUTES) {
    const set = read.get(route.resource) ?? new Set<string>();
    for (const fields of readFieldsByRole(route.id).values()) for (const f of fields) set.add(f);
    read.set(route.resource, set);
  }
  const unread: string[] = [];
  for (const [resource, fields] of Object.entries(WIRE_FIELDS)) {
    for (const f of Object.keys(fields)) if (!read.get(resource)?.has(f)) unread.push(`${resource}.${f}`);
  }
  expect(unread).toEqual([]);
});

test("a protected field is named as it is on the wire", () => {
  const wireNames = new Set(Object.values(WIRE_FIELDS).flatMap((fields) => Object.keys(fields)));
  const bySpelling = new Map([...wireNames].map((w) => [spellingKey(w), w]));
  const misnamed = Object.keys(policyFields.protected)
    .filter((p) => bySpelling.has(spellingKey(p)) && bySpelling.get(spellingKey(p)) !== p)
    .map((p) => `${p} (wire: ${bySpelling.get(spellingKey(p))})`);
  expect(misnamed).toEqual([]);
  // No field anyone may write shares a spelling with a protected or retired one (the guard would refuse it).
  const unwritable = new Set([...Object.keys(policyFields.protected), ...Object.keys(policyFields.retired)].map(spellingKey));
  expect(ROUTES.flatMap((r) => writeFields(r.id)).filter((f) => unwritable.has(spellingKey(f)))).toEqual([]);
});

test("a route's body schemas take exactly the fields the policy lets it write", () => {
  const drift: string[] = [];
  // One policy entry per route id, whatever its methods (GET and POST internal.reports.export): bodies of all its records together.
  for (const id of new Set(ROUTES.map((r) => r.id))) {
    const accepted = [...new Set(ROUTES.filter((r) => r.id === id).flatMap((r) => Object.keys(r.body?.properties ?? {})))].sort();
    const writable = writeFields(id).sort();
    if (JSON.stringify(accepted) !== JSON.stringify(writable)) drift.push(`${id}: body ${accepted.join(",") || "-"} / policy ${writable.join(",") || "-"}`);
  }
  expect(drift).toEqual([]);
});

test("every registry route has the policy entry it is decided by, with the same action and resource", () => {
  for (const route of ROUTES) {
    expect(ROUTE_POLICIES[route.id]).toMatchObject({ action: route.action, resource: route.resource });
    expect(ROUTE_POLICIES[route.id].methods).toContain(route.method);
  }
});

test("api/fields.ts computes the read and write sets the compiled policy decides", () => {
  let compared = 0;
  for (const route of ROUTES) {
    const reads = readFieldsByRole(route.id);
    const writes = writeFields(route.id);
    for (const role of ["member", "support", "admin"]) {
      if (!reads.has(role)) continue;
      const d = h.pdp.decide({
        actor: { id: "u_probe", tenant: "t_acme", roles: [role] },
        action: route.action,
        resource: { type: route.resource, tenant: "t_acme", owner: "u_other" },
        route: { id: route.id, method: route.method, version: "v2" },
        fields: { submitted: route.id === "invoices.refund" ? ["reason"] : [] },
        params: [],
      });
      if (!d.allow) continue;
      expect({ route: route.id, role, read: d.fields.read }).toEqual({ route: route.id, role, read: reads.get(role) });
      expect(d.fields.write.every((f) => writes.includes(f))).toBe(true);
      compared++;
    }
  }
  expect(compared).toBeGreaterThan(20);
});

describe("the body guard knows every protected and retired name, in any spelling, at any depth", () => {
  const names = [...Object.keys(policyFields.protected), ...Object.keys(policyFields.retired)];
  const spellings = (name: string): string[] => {
    const words = name
      .replace(/([a-z])([A-Z])/g, "$1 $2")
      .split(/[_\s]/)
      .filter((w) => w !== "");
    const lower = words.map((w) => w.toLowerCase());
    return [lower.join("_"), lower.map((w, i) => (i === 0 ? w : w[0].toUpperCase() + w.slice(1))).join(""), lower.join("-").toUpperCase()];
  };

  test.each(names)("%s", async (name) => {
    for (const spelling of spellings(name)) {
      const res = await request(h.app)
        .patch("/profile")
        .set(await h.auth("u_bob"))
        .send({ displayName: "Bob", prefs: [{ nested: { [spelling]: 1 } }] });
      expect(res.status).toBe(403);
      const event = (await h.events({ kind: "protected_field_submission", actorId: "u_bob" })).find((e) => e.decision_id === res.headers["decision-id"]);
      expect({ spelling, fields: (event?.detail as { fields?: string[] } | undefined)?.fields }).toEqual({ spelling, fields: expect.arrayContaining([name]) });
    }
  });
});

/**
 * Input that is the wrong SHAPE, per place it arrives: a path parameter
 * outside its schema is 400 invalid_param on every route that has one (an
 * 8 KiB id was answered invalid_body before), an id list in the query
 * likewise, and a JSON body that is not valid UTF-8 is 400 invalid_body
 * with nothing stored (it was stored with U+FFFD).
 */
import request from "supertest";
import { PATH_PARAMS, ROUTES } from "../../api/registry/routes";
import { expectProblem, startHarness, type Harness } from "./harness";

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ rateLimits: { default: { limit: 100_000, windowSec: 60 }, sensitive: { limit: 100_000, windowSec: 60 } } });
});
afterAll(async () => h?.close());

const ACME = { tenant_id: "t_acme" };

/** Every (route, template, path parameter) the registry declares, versions filled in. */
const PATH_ROUTES = ROUTES.flatMap((r) =>
  r.paths.flatMap((t) =>
    [...t.matchAll(/\{([a-z_]+)\}/g)]
      .map((m) => m[1])
      .filter((p) => p !== "version")
      .map((param) => ({ route: r, template: t, param })),
  ),
);

const BAD_IDS: Array<[string, string]> = [
  ["8 KiB", "i".repeat(8192)],
  ["65 characters", "i".repeat(65)],
  ["a dot", "inv.alice"],
  ["a space", "inv%20alice"],
  ["non-ASCII", "inv_%C3%BC"],
  ["a quote", "inv'1"],
];

test("every path parameter has a schema", () => {
  expect(PATH_ROUTES.length).toBeGreaterThan(0);
  for (const { param } of PATH_ROUTES) expect(PATH_PARAMS[param]).toBeDefined();
});

describe.each(PATH_ROUTES.map((p) => [`${p.route.method} ${p.template}`, p] as const))("%s", (_name, { route, template, param }) => {
  test.each(BAD_IDS)("an id with %s is 400 invalid_param for a caller the policy allows", async (_what, bad) => {
    const path = template.replace("{version}", "v2").replace(`{${param}}`, bad);
    // An admin of t_acme: allowed on every route with a path id (moderation, exports, invoice workflow).
    const res = await request(h.app)
      [route.method.toLowerCase() as "get" | "post"](path)
      .set(await h.auth("u_carol"))
      .send(route.body ? {} : undefined);
    expectProblem(res, 400, "invalid_param");
    expect(res.body.param).toBe(param);
  });
});

test("an id list in the query with an 8 KiB id is invalid_param", async () => {
  const res = await request(h.app)
    .get(`/invoices/export?ids=inv_alice_1,${"i".repeat(8192)}`)
    .set(await h.auth("u_alice"));
  expectProblem(res, 400, "invalid_param");
});

test("a path id refused by the guard is still answered by the policy first: anonymous gets 401", async () => {
  expectProblem(await request(h.app).get(`/invoices/${"i".repeat(8192)}`), 401, "authentication_required");
});

describe("a JSON body that is not valid UTF-8", () => {
  /** Raw bytes as the body (superagent would serialize a Buffer as JSON itself). */
  const raw = (bytes: Buffer) => (body: unknown) => (body === bytes ? bytes : body) as unknown as string;
  const broken = (json: string, bytes: number[]) =>
    Buffer.concat([Buffer.from(json.slice(0, json.indexOf("#"))), Buffer.from(bytes), Buffer.from(json.slice(json.indexOf("#") + 1))]);

  test.each([
    ["a stray byte", [0xff]],
    ["a truncated sequence", [0xe2, 0x82]],
    ["an overlong form", [0xc0, 0xaf]],
    ["a surrogate", [0xed, 0xa0, 0x80]],
  ])("PATCH /profile with %s: 400 invalid_body, nothing stored", async (_what, bytes) => {
    const before = await h.db.users.getScoped("u_alice", ACME);
    const body = broken('{"displayName":"Al#ice"}', bytes);
    const res = await request(h.app)
      .patch("/profile")
      .set(await h.auth("u_alice"))
      .set("Content-Type", "application/json")
      .serialize(raw(body))
      .send(body);
    expectProblem(res, 400, "invalid_body");
    expect(res.body.detail).toMatch(/UTF-8/);
    expect(await h.db.users.getScoped("u_alice", ACME)).toEqual(before);
  });

  test("POST /users/invite with a broken display name: nothing invited", async () => {
    const body = broken('{"email":"utf8@acme.example","displayName":"B#ob"}', [0xff]);
    const res = await request(h.app)
      .post("/users/invite")
      .set(await h.auth("u_carol"))
      .set("Content-Type", "application/json")
      .serialize(raw(body))
      .send(body);
    expectProblem(res, 400, "invalid_body");
    expect(await h.db.users.searchScoped(ACME, "utf8@acme.example", 10)).toEqual([]);
  });

  test("valid UTF-8 (non-ASCII) is stored as sent", async () => {
    const body = Buffer.from('{"displayName":"Alïce ✓"}');
    const res = await request(h.app)
      .patch("/profile")
      .set(await h.auth("u_alice"))
      .set("Content-Type", "application/json")
      .serialize(raw(body))
      .send(body);
    expect(res.status).toBe(200);
    expect((await h.db.users.getScoped("u_alice", ACME))?.display_name).toBe("Alïce ✓");
  });
});

/**
 * The re-read is what catches a write that answers "denied" but persisted
 * anyway. The real API never does that, so this test points the runner at
 * a deliberately faulty server (a real listening HTTP server) whose
 * PATCH /users/me writes the profile and THEN answers 403.
 */
import * as http from "node:http";
import type { AddressInfo } from "node:net";
import { parseMatrix } from "../../matrix/model";
import { runMatrix } from "../../matrix/run";

let server: http.Server;
let baseUrl: string;
const profile = { id: "u_alice", email: "alice@acme.example", displayName: "Alice Archer", locale: "en-US", createdAt: "2026-01-05T09:00:00.000Z" };
let patches = 0;

beforeAll(async () => {
  server = http.createServer((req, res) => {
    let raw = "";
    req.on("data", (c: Buffer) => (raw += c.toString()));
    req.on("end", () => {
      const send = (status: number, body: unknown) => res.writeHead(status, { "Content-Type": "application/json" }).end(JSON.stringify(body));
      if (req.url !== "/users/me") return send(404, { type: "urn:portcullis:problem:route_not_found" });
      if (req.method === "GET") return send(200, profile);
      patches++;
      Object.assign(profile, JSON.parse(raw)); // the bug: written before refusing
      return send(403, { type: "urn:portcullis:problem:forbidden", reason: "role_required" });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

test("a denied write that persisted is an unexpected allow, and the profile is restored", async () => {
  const matrix = parseMatrix({
    personas: { u_alice: { role: "member", tenant: "t_acme" } },
    readers: { t_acme: ["u_alice"] },
    objects: { invoice: {} },
    probe_field: "isAdmin",
    routes: {
      "PATCH users.me.update": {
        targets: ["own"], object: "profile", body: { displayName: "Matrix {n}", locale: "fr-FR" },
        expect: { member: { own: "deny 403 role_required" } },
        read: { "*": ["createdAt", "displayName", "email", "id", "locale"] }, write: { "*": ["displayName", "locale"] },
      },
    },
  });
  const report = await runMatrix({
    baseUrl,
    matrix,
    ops: { operations: [{ routeId: "users.me.update", method: "PATCH", version: "v2", templates: ["/users/me"], successStatus: 200 }], versions: ["v2"], unknown: [], source: "test" },
    tokenFor: async () => "not-checked-by-this-server",
  });
  const [cell, probe] = report.cells;
  expect(cell).toMatchObject({ status: 403, code: "role_required", outcome: "unexpected_allow" });
  expect(cell.detail).toContain("denied, but the profile changed");
  expect(probe).toMatchObject({ probe: "isAdmin", outcome: "n/a" });
  expect(report.summary.failed).toBe(1);
  // The cell's PATCH, then the runner's restoring PATCH.
  expect(patches).toBe(2);
  expect(profile).toMatchObject({ displayName: "Alice Archer", locale: "en-US" });
});

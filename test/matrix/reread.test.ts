/**
 * The re-read is what catches a write that answers "denied" but persisted
 * anyway. The real API never does that, so this test points the runner at
 * a deliberately faulty server (a real listening HTTP server) whose
 * PATCH /users/me writes the profile and THEN answers 403. The runner puts
 * the profile back through the route a persona may use (PATCH /profile)
 * and re-reads it; when that restore does not take, the run fails and says so.
 */
import * as http from "node:http";
import type { AddressInfo } from "node:net";
import { parseMatrix } from "../../matrix/model";
import { runMatrix } from "../../matrix/run";

let server: http.Server;
let baseUrl: string;
const profile = { id: "u_alice", email: "alice@acme.example", displayName: "Alice Archer" };
let patches = 0;
/** Whether PATCH /profile (the restore route) works on this server. */
let restoreWorks = true;

beforeAll(async () => {
  server = http.createServer((req, res) => {
    let raw = "";
    req.on("data", (c: Buffer) => (raw += c.toString()));
    req.on("end", () => {
      const send = (status: number, body: unknown) => res.writeHead(status, { "Content-Type": "application/json" }).end(JSON.stringify(body));
      if (req.url === "/profile" && req.method === "PATCH" && restoreWorks) {
        patches++;
        Object.assign(profile, JSON.parse(raw));
        return send(200, profile);
      }
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

const matrix = () =>
  parseMatrix({
    personas: { u_alice: { role: "member", tenant: "t_acme" } },
    readers: { t_acme: ["u_alice"] },
    objects: { invoice: {} },
    probe_field: "isAdmin",
    routes: {
      "PATCH users.me.update": {
        targets: ["own"],
        object: "profile",
        body: { displayName: "Matrix {n}" },
        expect: { member: { own: "deny 403 role_required" } },
        read: { "*": ["displayName", "email", "id"] },
        write: { "*": ["displayName"] },
      },
    },
  });

const run = () =>
  runMatrix({
    baseUrl,
    matrix: matrix(),
    ops: {
      operations: [{ routeId: "users.me.update", method: "PATCH", version: "v2", templates: ["/users/me"], successStatus: 200 }],
      versions: ["v2"],
      unknown: [],
      source: "test",
    },
    tokenFor: async () => "not-checked-by-this-server",
  });

test("a denied write that persisted is an unexpected allow, and the profile is restored through PATCH /profile", async () => {
  const report = await run();
  const [cell, probe] = report.cells;
  expect(cell).toMatchObject({ status: 403, code: "role_required", outcome: "unexpected_allow" });
  expect(cell.detail).toContain("denied, but the profile changed");
  expect(probe).toMatchObject({ probe: "isAdmin", outcome: "n/a" });
  expect(report.summary.failed).toBe(1);
  // The cell's PATCH, then the runner's restoring PATCH.
  expect(patches).toBe(2);
  expect(profile).toMatchObject({ displayName: "Alice Archer" });
  expect(report.restore_problems).toEqual([]);
  expect(report.changes).toContain("personas: all 1 profiles as the run found them (re-read)");
});

test("a restore that does not take fails the run and names the persona", async () => {
  restoreWorks = false;
  const report = await run();
  expect(profile.displayName).toMatch(/^Matrix /);
  expect(report.restore_problems.length).toBeGreaterThan(0);
  expect(report.restore_problems[0]).toContain("u_alice's profile could not be put back (PATCH /profile answered 404");
  expect(report.summary.failed).toBe(1 + report.restore_problems.length);
  expect(report.changes).toContain("personas: NOT all restored (see failures)");
});

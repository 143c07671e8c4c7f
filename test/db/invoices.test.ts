/**
 * The invoices repository beyond scoping: paging, batch reads that drop
 * foreign ids, state transitions only from allowed states and atomic (also
 * across processes), search that never matches private text, inert injections.
 */
import { spawn } from "node:child_process";
import * as path from "node:path";
import { DbInputError } from "../../db";
import { ACME, ALICE, BOB, closeTempDb, DAVE, GLOBEX, INJECTIONS, openTempDb, type TempDb } from "./helpers";

let t: TempDb;
beforeEach(() => (t = openTempDb()));
afterEach(() => closeTempDb(t));

describe("listScoped", () => {
  test("newest first, paged", () => {
    expect(t.db.invoices.listScoped(ALICE, { limit: 10, offset: 0 }).map((i) => i.id)).toEqual(["inv_alice_3", "inv_alice_2", "inv_alice_1"]);
    expect(t.db.invoices.listScoped(ACME, { limit: 2, offset: 1 }).map((i) => i.id)).toEqual(["inv_carol_1", "inv_frank_1"]);
    expect(t.db.invoices.listScoped(ACME, { limit: 2, offset: 4 }).map((i) => i.id)).toEqual(["inv_bob_2", "inv_bob_1"]);
    expect(t.db.invoices.listScoped(GLOBEX, { limit: 10, offset: 10 })).toEqual([]);
  });

  test("refuses bad paging, caps huge limits", () => {
    for (const page of [
      { limit: 0, offset: 0 },
      { limit: 5, offset: -1 },
      { limit: 1.5, offset: 0 },
      { limit: 5, offset: "0" },
      { limit: "5; DROP TABLE invoices", offset: 0 },
    ]) {
      expect(() => t.db.invoices.listScoped(ACME, page as never)).toThrow(DbInputError);
    }
    expect(t.db.invoices.listScoped(ACME, { limit: Number.MAX_SAFE_INTEGER, offset: 0 })).toHaveLength(8);
  });
});

describe("tenantOf (security monitoring only)", () => {
  test("names the owning tenant and nothing else; unknown and injected ids own nothing", () => {
    expect(t.db.invoices.tenantOf("inv_dave_1")).toBe("t_globex");
    expect(t.db.invoices.tenantOf("inv_alice_1")).toBe("t_acme");
    expect(t.db.invoices.tenantOf("inv_nope")).toBeUndefined();
    for (const attack of INJECTIONS) {
      let owner: string | undefined;
      try {
        owner = t.db.invoices.tenantOf(attack);
      } catch (err) {
        expect(err).toBeInstanceOf(DbInputError); // refused as input, never run as SQL
      }
      expect(owner).toBeUndefined();
    }
  });
});

describe("getManyScoped", () => {
  test("returns only in-scope rows, in the requested order, once each", () => {
    const ids = ["inv_dave_1", "inv_alice_2", "inv_bob_1", "inv_alice_1", "inv_alice_2", "inv_missing"];
    expect(t.db.invoices.getManyScoped(ids, ALICE).map((i) => i.id)).toEqual(["inv_alice_2", "inv_alice_1"]);
    expect(t.db.invoices.getManyScoped(ids, ACME).map((i) => i.id)).toEqual(["inv_alice_2", "inv_bob_1", "inv_alice_1"]);
    expect(t.db.invoices.getManyScoped(ids, DAVE).map((i) => i.id)).toEqual(["inv_dave_1"]);
    expect(t.db.invoices.getManyScoped([], ACME)).toEqual([]);
  });

  test("injected ids are inert", () => {
    expect(t.db.invoices.getManyScoped(INJECTIONS, ACME)).toEqual([]);
    expect(t.db.invoices.getManyScoped(['inv_dave_1", "inv_bob_1', '"]) --'], ALICE)).toEqual([]);
    expect(t.db.invoices.getManyScoped(["inv_alice_1", ...INJECTIONS], ALICE).map((i) => i.id)).toEqual(["inv_alice_1"]);
  });

  test("refuses non-lists, non-string ids and oversized batches", () => {
    expect(() => t.db.invoices.getManyScoped("inv_alice_1" as never, ALICE)).toThrow(DbInputError);
    expect(() => t.db.invoices.getManyScoped([1, 2] as never, ALICE)).toThrow(DbInputError);
    expect(() => t.db.invoices.getManyScoped([{ id: "inv_alice_1" }] as never, ALICE)).toThrow(DbInputError);
    expect(() =>
      t.db.invoices.getManyScoped(
        Array.from({ length: 101 }, (_, i) => `inv_${i}`),
        ALICE,
      ),
    ).toThrow(DbInputError);
  });
});

describe("transitionScoped", () => {
  test("moves a row from an allowed state", () => {
    const row = t.db.invoices.transitionScoped("inv_alice_2", ACME, ["pending"], "approved");
    expect(row).toMatchObject({ id: "inv_alice_2", status: "approved" });
    expect(t.db.invoices.getScoped("inv_alice_2", ACME)?.status).toBe("approved");
  });

  test("leaves a row in any other state untouched", () => {
    expect(t.db.invoices.transitionScoped("inv_dave_2", GLOBEX, ["approved", "published"], "refunded")).toBeUndefined();
    expect(t.db.invoices.getScoped("inv_dave_2", GLOBEX)?.status).toBe("refunded");
    expect(t.db.invoices.transitionScoped("inv_alice_3", ALICE, ["pending"], "approved")).toBeUndefined();
    expect(t.db.invoices.getScoped("inv_alice_3", ALICE)?.status).toBe("draft");
  });

  test("a second identical transition finds nothing to do", () => {
    expect(t.db.invoices.transitionScoped("inv_bob_1", BOB, ["pending"], "approved")).toBeDefined();
    expect(t.db.invoices.transitionScoped("inv_bob_1", BOB, ["pending"], "approved")).toBeUndefined();
  });

  test("refuses unknown statuses and an empty from-list", () => {
    for (const [from, to] of [
      [["pending"], "paid"],
      [["pending' OR '1'='1"], "approved"],
      [[], "approved"],
      ["pending", "approved"],
      [["pending"], ""],
    ] as const) {
      expect(() => t.db.invoices.transitionScoped("inv_alice_2", ACME, from as never, to)).toThrow(DbInputError);
    }
    expect(t.db.invoices.getScoped("inv_alice_2", ACME)?.status).toBe("pending");
  });

  test("the result form tells not_found from conflict, and hides foreign rows", () => {
    expect(t.db.invoices.transitionScopedResult("inv_alice_2", ALICE, ["pending"], "approved")).toMatchObject({ outcome: "ok", row: { status: "approved" } });
    expect(t.db.invoices.transitionScopedResult("inv_alice_2", ALICE, ["pending"], "approved")).toEqual({ outcome: "conflict", status: "approved" });
    expect(t.db.invoices.transitionScopedResult("inv_dave_1", ACME, ["pending"], "approved")).toEqual({ outcome: "not_found" });
    expect(t.db.invoices.transitionScopedResult("inv_nope", ACME, ["pending"], "approved")).toEqual({ outcome: "not_found" });
  });

  test("rolls back with the transaction around it (no partial writes)", () => {
    expect(() =>
      t.db.transaction(() => {
        t.db.invoices.transitionScoped("inv_alice_2", ACME, ["pending"], "approved");
        t.db.invoices.transitionScoped("inv_bob_1", ACME, ["pending"], "approved");
        throw new Error("payment provider down");
      }),
    ).toThrow("payment provider down");
    expect(t.db.invoices.getManyScoped(["inv_alice_2", "inv_bob_1"], ACME).map((i) => i.status)).toEqual(["pending", "pending"]);
  });

  test("nested transactions roll back only their own part", () => {
    t.db.transaction(() => {
      t.db.invoices.transitionScoped("inv_alice_2", ACME, ["pending"], "approved");
      expect(() =>
        t.db.transaction(() => {
          t.db.invoices.transitionScoped("inv_bob_1", ACME, ["pending"], "approved");
          throw new Error("inner failure");
        }),
      ).toThrow("inner failure");
    });
    expect(t.db.invoices.getManyScoped(["inv_alice_2", "inv_bob_1"], ACME).map((i) => i.status)).toEqual(["approved", "pending"]);
  });

  test("refuses an async transaction body (it would commit before the work ran)", () => {
    expect(() => t.db.transaction(async () => undefined)).toThrow(/promise/i);
  });

  test("is atomic across processes: of concurrent approvals exactly one wins", async () => {
    t.db.close();
    const racers = 6;
    const startAt = Date.now() + 1500;
    const results = await Promise.all(Array.from({ length: racers }, () => race(t.file, startAt)));
    expect(results.filter((r) => r === "won")).toHaveLength(1);
    expect(results.filter((r) => r === "lost")).toHaveLength(racers - 1);
  });
});

describe("searchScoped", () => {
  test("matches invoice numbers within the scope", () => {
    expect(t.db.invoices.searchScoped(ACME, "acme-2026-000", 10)).toHaveLength(8);
    expect(t.db.invoices.searchScoped(ALICE, "ACME", 10).map((i) => i.owner_id)).toEqual(["u_alice", "u_alice", "u_alice"]);
    expect(t.db.invoices.searchScoped(ACME, "GLX", 10)).toEqual([]);
  });

  test("never matches private text; injections and wildcards are literal", () => {
    expect(t.db.invoices.searchScoped(ACME, "SECRET", 10)).toEqual([]);
    expect(t.db.invoices.searchScoped(ACME, "budget", 10)).toEqual([]);
    for (const q of INJECTIONS) expect(t.db.invoices.searchScoped(ACME, q, 100)).toEqual([]);
  });
});

/**
 * One racer: a separate Node process loading db/ through SWC, waiting for a
 * shared start time, then trying the same approval.
 */
function race(file: string, startAt: number): Promise<string> {
  const root = path.resolve(__dirname, "../..");
  const script = `
    const fs = require("fs");
    const swc = require("@swc/core");
    require.extensions[".ts"] = (m, filename) => {
      const { code } = swc.transformSync(fs.readFileSync(filename, "utf8"), { filename, jsc: { parser: { syntax: "typescript" }, target: "es2022" }, module: { type: "commonjs" } });
      m._compile(code, filename);
    };
    const { openDatabase } = require(${JSON.stringify(path.join(root, "db/index.ts"))});
    const db = openDatabase(${JSON.stringify(file)});
    while (Date.now() < ${startAt}) {}
    const row = db.invoices.transitionScoped("inv_alice_2", { tenant_id: "t_acme" }, ["pending"], "approved");
    process.stdout.write(row ? "won" : "lost");
    db.close();
  `;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["-e", script], { cwd: root });
    let out = "";
    let err = "";
    child.stdout.on("data", (d) => (out += d));
    child.stderr.on("data", (d) => (err += d));
    child.on("error", reject);
    child.on("close", (code) => (code === 0 ? resolve(out) : reject(new Error(`racer exited ${code}: ${err}`))));
  });
}

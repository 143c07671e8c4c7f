/**
 * Contract: the invoices repository, the same tests on SQLite and PostgreSQL
 * (backends.ts). Scoped reads, paging (offset and keyset), totals, batch
 * reads that drop foreign ids, transitions only from allowed states, search
 * that never matches private text, inert injections.
 */
import { DbInputError, ScopeError, SEED_INVOICES } from "../../../db";
import { ACME, ALICE, BOB, DAVE, GLOBEX, INJECTIONS } from "../helpers";
import { BACKENDS, useBackend } from "./backends";

describe.each(BACKENDS)("invoices on $name", (backend) => {
  const t = useBackend(backend);

  test("getScoped returns the seed row exactly, within its scope only", async () => {
    const seed = SEED_INVOICES.find((i) => i.id === "inv_alice_1")!;
    expect(await t.store.invoices.getScoped("inv_alice_1", ALICE)).toEqual(seed);
    expect(await t.store.invoices.getScoped("inv_alice_1", ACME)).toEqual(seed);
    expect(await t.store.invoices.getScoped("inv_alice_1", BOB)).toBeUndefined();
    expect(await t.store.invoices.getScoped("inv_alice_1", GLOBEX)).toBeUndefined();
    expect(await t.store.invoices.getScoped("inv_dave_1", ACME)).toBeUndefined();
    for (const id of INJECTIONS) expect(await t.store.invoices.getScoped(id, ACME)).toBeUndefined();
    await expect(t.store.invoices.getScoped("inv_alice_1", { owner_id: "u_alice" } as never)).rejects.toThrow(ScopeError);
  });

  test("listScoped: newest first, paged; bad paging refused, huge limits capped", async () => {
    expect((await t.store.invoices.listScoped(ALICE, { limit: 10, offset: 0 })).map((i) => i.id)).toEqual(["inv_alice_3", "inv_alice_2", "inv_alice_1"]);
    expect((await t.store.invoices.listScoped(ACME, { limit: 2, offset: 1 })).map((i) => i.id)).toEqual(["inv_carol_1", "inv_frank_1"]);
    expect(await t.store.invoices.listScoped(GLOBEX, { limit: 10, offset: 10 })).toEqual([]);
    expect(await t.store.invoices.listScoped(ACME, { limit: Number.MAX_SAFE_INTEGER, offset: 0 })).toHaveLength(8);
    for (const page of [
      { limit: 0, offset: 0 },
      { limit: 5, offset: -1 },
      { limit: "5; DROP TABLE invoices", offset: 0 },
    ]) {
      await expect(t.store.invoices.listScoped(ACME, page as never)).rejects.toThrow(DbInputError);
    }
  });

  test("listPageScoped walks every row in scope once by keyset, whatever is inserted meanwhile", async () => {
    const seen: string[] = [];
    let after: { created_at: string; id: string } | undefined;
    for (;;) {
      const page = await t.store.invoices.listPageScoped(ACME, { limit: 3, after });
      if (page.length === 0) break;
      seen.push(...page.map((r) => r.id));
      after = { created_at: page[page.length - 1].created_at, id: page[page.length - 1].id };
    }
    expect(seen).toEqual((await t.store.invoices.listScoped(ACME, { limit: 100, offset: 0 })).map((r) => r.id));
    expect(new Set(seen).size).toBe(8);
  });

  test("totalsByStatusScoped aggregates every row in scope", async () => {
    expect(await t.store.invoices.totalsByStatusScoped(ALICE)).toEqual([
      { status: "approved", count: 1, amount_cents: 129_900 },
      { status: "draft", count: 1, amount_cents: 8_000 },
      { status: "pending", count: 1, amount_cents: 45_000 },
    ]);
    expect(await t.store.invoices.totalsByStatusScoped(GLOBEX)).toEqual([
      { status: "approved", count: 1, amount_cents: 61_000 },
      { status: "pending", count: 2, amount_cents: 1_078_000 },
      { status: "published", count: 1, amount_cents: 7_500 },
      { status: "refunded", count: 1, amount_cents: 15_000 },
    ]);
  });

  test("getManyScoped: only in-scope rows, requested order, once each; injections inert; bad batches refused", async () => {
    const ids = ["inv_dave_1", "inv_alice_2", "inv_bob_1", "inv_alice_1", "inv_alice_2", "inv_missing"];
    expect((await t.store.invoices.getManyScoped(ids, ALICE)).map((i) => i.id)).toEqual(["inv_alice_2", "inv_alice_1"]);
    expect((await t.store.invoices.getManyScoped(ids, ACME)).map((i) => i.id)).toEqual(["inv_alice_2", "inv_bob_1", "inv_alice_1"]);
    expect((await t.store.invoices.getManyScoped(ids, DAVE)).map((i) => i.id)).toEqual(["inv_dave_1"]);
    expect(await t.store.invoices.getManyScoped(INJECTIONS, ACME)).toEqual([]);
    expect(await t.store.invoices.getManyScoped([], ACME)).toEqual([]);
    await expect(
      t.store.invoices.getManyScoped(
        Array.from({ length: 101 }, (_, i) => `inv_${i}`),
        ALICE,
      ),
    ).rejects.toThrow(DbInputError);
    await expect(t.store.invoices.getManyScoped([1, 2] as never, ALICE)).rejects.toThrow(DbInputError);
  });

  test("transitionScoped moves a row only from an allowed state, only in scope", async () => {
    expect(await t.store.invoices.transitionScoped("inv_alice_2", ACME, ["pending"], "approved")).toMatchObject({ id: "inv_alice_2", status: "approved" });
    expect(await t.store.invoices.transitionScoped("inv_alice_2", ACME, ["pending"], "approved")).toBeUndefined();
    expect(await t.store.invoices.transitionScoped("inv_dave_1", ACME, ["pending"], "approved")).toBeUndefined();
    expect((await t.store.invoices.getScoped("inv_dave_1", GLOBEX))?.status).toBe("pending");
    await expect(t.store.invoices.transitionScoped("inv_bob_1", ACME, ["pending' OR '1'='1"], "approved")).rejects.toThrow(DbInputError);
    await expect(t.store.invoices.transitionScoped("inv_bob_1", ACME, [], "approved")).rejects.toThrow(DbInputError);
    expect((await t.store.invoices.getScoped("inv_bob_1", ACME))?.status).toBe("pending");
  });

  test("transitionScopedResult tells not_found from conflict and hides foreign rows", async () => {
    expect(await t.store.invoices.transitionScopedResult("inv_alice_2", ALICE, ["pending"], "approved")).toMatchObject({
      outcome: "ok",
      row: { status: "approved" },
    });
    expect(await t.store.invoices.transitionScopedResult("inv_alice_2", ALICE, ["pending"], "approved")).toEqual({ outcome: "conflict", status: "approved" });
    expect(await t.store.invoices.transitionScopedResult("inv_dave_1", ACME, ["pending"], "approved")).toEqual({ outcome: "not_found" });
    expect(await t.store.invoices.transitionScopedResult("inv_nope", ACME, ["pending"], "approved")).toEqual({ outcome: "not_found" });
  });

  test("of concurrent approvals exactly one wins", async () => {
    const results = await Promise.all(Array.from({ length: 6 }, () => t.store.invoices.transitionScoped("inv_bob_1", ACME, ["pending"], "approved")));
    expect(results.filter((r) => r !== undefined)).toHaveLength(1);
  });

  test("searchScoped: numbers only, in scope; never private text; injections literal", async () => {
    expect(await t.store.invoices.searchScoped(ACME, "acme-2026-000", 10)).toHaveLength(8);
    expect((await t.store.invoices.searchScoped(ALICE, "ACME", 10)).map((i) => i.id)).toEqual(["inv_alice_3", "inv_alice_2", "inv_alice_1"]);
    expect(await t.store.invoices.searchScoped(ACME, "GLX", 10)).toEqual([]);
    expect(await t.store.invoices.searchScoped(ACME, "SECRET", 10)).toEqual([]);
    for (const q of INJECTIONS) expect(await t.store.invoices.searchScoped(ACME, q, 100)).toEqual([]);
  });

  test("tenantOf names the owning tenant for monitoring; unknown ids own nothing", async () => {
    expect(await t.store.invoices.tenantOf("inv_dave_1")).toBe("t_globex");
    expect(await t.store.invoices.tenantOf("inv_alice_1")).toBe("t_acme");
    expect(await t.store.invoices.tenantOf("inv_nope")).toBeUndefined();
    expect(await t.store.invoices.tenantOf("' OR '1'='1")).toBeUndefined();
  });
});

/**
 * Contract: writes are atomic on both backends (backends.ts). A transaction
 * commits all of its writes or none; a nested one rolls back only its part;
 * a `tx` kept past its transaction cannot write; while a transaction is
 * open, other callers never see (nor join) its uncommitted writes.
 */
import { ACME, GLOBEX } from "../helpers";
import { BACKENDS, useBackend } from "./backends";

describe.each(BACKENDS)("transactions on $name", (backend) => {
  const t = useBackend(backend);

  const statuses = async () => (await t.store.invoices.getManyScoped(["inv_alice_2", "inv_bob_1", "inv_dave_1"], { tenant_id: "t_acme" })).map((i) => i.status);

  test("commits every write together", async () => {
    const result = await t.store.transaction(async (tx) => {
      await tx.invoices.transitionScoped("inv_alice_2", ACME, ["pending"], "approved");
      await tx.users.setStatusScoped("u_bob", ACME, "suspended");
      await tx.securityEvents.record({ kind: "k", actorId: "u_carol", tenantId: "t_acme", routeId: "r", detail: {} });
      return "done";
    });
    expect(result).toBe("done");
    expect(await statuses()).toEqual(["approved", "pending"]);
    expect((await t.store.users.findIdentity("u_bob"))?.status).toBe("suspended");
    expect(await t.store.securityEvents.query({})).toHaveLength(1);
  });

  test("a failure anywhere rolls every write back (nothing half-written), across tenants and tables", async () => {
    await expect(
      t.store.transaction(async (tx) => {
        await tx.invoices.transitionScoped("inv_alice_2", ACME, ["pending"], "approved");
        await tx.invoices.transitionScoped("inv_dave_1", GLOBEX, ["pending"], "approved");
        await tx.users.inviteScoped(ACME, { email: "new@acme.example", role: "member" });
        await tx.securityEvents.record({ kind: "k", actorId: "u_carol", tenantId: "t_acme", routeId: "r", detail: {} });
        throw new Error("payment provider down");
      }),
    ).rejects.toThrow("payment provider down");
    expect(await statuses()).toEqual(["pending", "pending"]);
    expect((await t.store.invoices.getScoped("inv_dave_1", GLOBEX))?.status).toBe("pending");
    expect(await t.store.users.searchScoped(ACME, "new@", 10)).toEqual([]);
    expect(await t.store.securityEvents.query({})).toEqual([]);
  });

  test("a database error inside rolls back the writes before it", async () => {
    await expect(
      t.store.transaction(async (tx) => {
        await tx.invoices.transitionScoped("inv_alice_2", ACME, ["pending"], "approved");
        await tx.users.inviteScoped(ACME, { email: "alice@acme.example", role: "member" }); // duplicate: conflict
      }),
    ).rejects.toMatchObject({ code: "conflict" });
    expect(await statuses()).toEqual(["pending", "pending"]);
  });

  test("nested transactions roll back only their own part", async () => {
    await t.store.transaction(async (tx) => {
      await tx.invoices.transitionScoped("inv_alice_2", ACME, ["pending"], "approved");
      await expect(
        tx.transaction(async (inner) => {
          await inner.invoices.transitionScoped("inv_bob_1", ACME, ["pending"], "approved");
          throw new Error("inner failure");
        }),
      ).rejects.toThrow("inner failure");
    });
    expect(await statuses()).toEqual(["approved", "pending"]);
  });

  test("a tx kept past its transaction cannot write", async () => {
    let kept: Parameters<Parameters<typeof t.store.transaction>[0]>[0] | undefined;
    await t.store.transaction(async (tx) => {
      kept = tx;
    });
    await expect(kept!.invoices.transitionScoped("inv_alice_2", ACME, ["pending"], "approved")).rejects.toThrow(/transaction already ended/);
    expect(await statuses()).toEqual(["pending", "pending"]);
  });

  test("others do not see uncommitted writes, and a rolled-back transaction leaves no trace for them", async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let wrote!: () => void;
    const written = new Promise<void>((resolve) => (wrote = resolve));
    const running = t.store.transaction(async (tx) => {
      await tx.invoices.transitionScoped("inv_alice_2", ACME, ["pending"], "approved");
      wrote();
      await gate;
      throw new Error("abort");
    });
    await written;
    // SQLite: this read waits for the transaction (one connection); PostgreSQL: it reads the committed row.
    const outside = t.store.invoices.getScoped("inv_alice_2", ACME);
    release();
    await expect(running).rejects.toThrow("abort");
    expect((await outside)?.status).toBe("pending");
  });
});

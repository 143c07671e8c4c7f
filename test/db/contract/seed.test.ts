/**
 * Contract: both backends start from the identical seed (db/seed.ts): every
 * tenant, user and invoice, every private column, the same timestamps.
 */
import { SEED_INVOICES, SEED_TENANTS, SEED_USERS } from "../../../db";
import { BACKENDS, useBackend } from "./backends";

describe.each(BACKENDS)("seed on $name", (backend) => {
  const t = useBackend(backend);

  test("holds exactly the seed rows", async () => {
    expect(await t.store.tenants.list()).toEqual(SEED_TENANTS.map((x) => ({ id: x.id, name: x.name })));
    for (const tenant of SEED_TENANTS) {
      const scope = { tenant_id: tenant.id };
      const users = SEED_USERS.filter((u) => u.tenant_id === tenant.id)
        .map((u) => ({ ...u, is_admin: u.role === "admin" ? 1 : 0, status: "active" }))
        .sort((a, b) => (a.display_name < b.display_name ? -1 : 1));
      expect(await t.store.users.searchScoped(scope, "", 100)).toEqual(users);
      const invoices = SEED_INVOICES.filter((i) => i.tenant_id === tenant.id).sort((a, b) => (a.created_at < b.created_at ? 1 : -1));
      expect(await t.store.invoices.listScoped(scope, { limit: 100, offset: 0 })).toEqual(invoices);
    }
    expect(await t.store.securityEvents.query({})).toEqual([]);
    expect(await t.store.traffic.summary()).toEqual([]);
    expect(await t.store.versionCallers.summary()).toEqual([]);
  });
});

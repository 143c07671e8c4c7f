/**
 * The stable seed rows of db/seed.ts, written to PostgreSQL: the same ids,
 * the same private values, the same timestamps, so both backends answer the
 * same. Runs in the migration transaction of a new database; each tenant's
 * rows are written with that tenant set, through the same row-level security
 * as everything else (FORCE applies to the owner too).
 */
import type pg from "pg";
import { SEED_INVOICES, SEED_TENANTS, SEED_USERS } from "../seed";

export async function seedPg(client: pg.ClientBase): Promise<void> {
  for (const t of SEED_TENANTS) {
    await client.query("INSERT INTO tenants (id, name, created_at) VALUES ($1, $2, '2026-01-01T00:00:00.000Z')", [t.id, t.name]);
  }
  for (const t of SEED_TENANTS) {
    await client.query("SELECT set_config('portcullis.tenant', $1, true)", [t.id]);
    for (const u of SEED_USERS.filter((u) => u.tenant_id === t.id)) {
      await client.query(
        `INSERT INTO users (id, tenant_id, email, display_name, locale, role, account_credit_cents, support_priority, billing_plan, internal_notes, status, created_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, 'active', $11)`,
        [
          u.id,
          u.tenant_id,
          u.email,
          u.display_name,
          u.locale,
          u.role,
          u.account_credit_cents,
          u.support_priority,
          u.billing_plan,
          u.internal_notes,
          u.created_at,
        ],
      );
    }
    for (const i of SEED_INVOICES.filter((i) => i.tenant_id === t.id)) {
      await client.query(
        `INSERT INTO invoices (id, tenant_id, owner_id, number, amount_cents, currency, status, internal_notes, created_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
        [i.id, i.tenant_id, i.owner_id, i.number, i.amount_cents, i.currency, i.status, i.internal_notes, i.created_at],
      );
    }
  }
  await client.query("SELECT set_config('portcullis.tenant', '', true)");
}
